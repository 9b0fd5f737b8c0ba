package checkers

import (
	"fmt"
	"time"
)

// porcupine (v1.3.1) bounds its search by wall-clock time only, so on a
// loaded machine a big history that an idle one proves illegal comes out
// Unknown: the verdict would depend on the machine. kafkasim bounds the
// search by the work it does instead, which is the same on every machine.
// porcupine's API has no such bound, but its search (checkSingle in
// porcupine's checker.go) calls the model's Step for every candidate
// linearization: the model counts them, and once the budget is spent it
// refuses every step. porcupine then backtracks to the start at the cost
// of a step per open operation and answers Illegal, which the checker
// reads as Unknown because the search was cut short, never as a finding.
//
// A step the model accepts costs more the bigger the partition: porcupine
// then hashes, compares and copies a bitset of one bit per operation. So a
// step costs one work unit, and an accepted one 1 + ops/64 more (one per
// 64-bit word of that bitset), and a budget in work units bounds the
// search's time on histories of every size alike.
//
// The wall-clock cap (Options.LinearizabilityBudget) stays only as a last
// resort against a machine so slow that even the bounded search takes too
// long; when it ends a search, the verdict says so, since only that verdict
// depends on the machine.

// DefaultLinearizabilityWork is the work budget of one partition's search
// when Options.LinearizabilityWork is 0. BenchmarkPorcupine100k spends
// some 25 million units a CPU second on this project's machines, so the
// default stops a search after about 2 CPU seconds there; the hardest
// partition of the scenario catalog (20 seeds of every scenario, checked
// with no bound on 2026-12-02) needed 7.1 million.
const DefaultLinearizabilityWork = 50_000_000

// DefaultLinearizabilityCap is the wall-clock cap when
// Options.LinearizabilityBudget is 0: far above what the default work
// budget takes on an idle machine, so that only a machine many times
// slower or busier than that meets it.
const DefaultLinearizabilityCap = time.Minute

// stopReason says why a search was cut short; "" when it was not.
type stopReason string

const (
	stoppedByWork  stopReason = "work budget"
	stoppedByClock stopReason = "wall-clock cap"
)

// clockEvery is how many steps pass between two readings of the wall
// clock: reading it costs more than a step.
const clockEvery = 4096

// searchBudget meters porcupine's search of one partition.
type searchBudget struct {
	limit    int64 // work units the search may spend; negative: no limit
	wordCost int64 // work units porcupine's bitset work costs after an accepted step
	used     int64 // work units spent so far
	steps    int64 // steps taken, refused ones included

	start time.Time     // when the history's check began
	wall  time.Duration // the wall-clock cap over the whole history

	stopped stopReason
}

func newSearchBudget(limit int64, ops int, start time.Time, wall time.Duration) *searchBudget {
	return &searchBudget{limit: limit, wordCost: 1 + int64(ops)/64, start: start, wall: wall}
}

// step reports whether the search may take one more step, and pays for it.
// A step is taken only while the budget could pay for it being accepted,
// so the search never spends more than its limit. Once it says no, it says
// no for good: the search must unwind.
func (b *searchBudget) step() bool {
	if b.stopped != "" {
		return false
	}
	if b.limit >= 0 && b.used+1+b.wordCost > b.limit {
		b.stopped = stoppedByWork
		return false
	}
	b.used++
	b.steps++
	if b.steps%clockEvery == 0 && clock().Sub(b.start) > b.wall {
		b.stopped = stoppedByClock
		return false
	}
	return true
}

// accepted pays for the bitset work that follows a step the model
// accepted.
func (b *searchBudget) accepted() { b.used += b.wordCost }

// why explains an unknown verdict for the notes.
func (b *searchBudget) why(limit int64) string {
	switch b.stopped {
	case stoppedByWork:
		return fmt.Sprintf("the search used its work budget of %d units", limit)
	case stoppedByClock:
		return fmt.Sprintf("the %v wall-clock cap ran out (a verdict that depends on the machine's speed and load)", b.wall)
	}
	return ""
}
