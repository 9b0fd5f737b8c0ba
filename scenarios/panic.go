package scenarios

import (
	"fmt"
	"runtime"
	"strings"

	"kafkasim/checkers"
)

// A run can stop before its end in two ways that are bugs found, like any
// checker's error, and must not be judged as if it had finished:
//
//   - the simulated cluster's code (or the harness) panics. The run stops
//     there, and its result says what panicked, when, and where, with the
//     seed and schedule that reproduce it. A panic must not end a sweep of
//     thousands of seeds, nor leave the command line's exit code at Go's
//     2, which kafkasim gives bad input. The simulator's Run already adds
//     the virtual time, the event count and the seed to the message
//     (sim.Sim.Run).
//   - the run reaches the simulator's event limit (a livelock, or a run
//     far larger than the limit allows): the simulator then runs nothing
//     more, and the phases after it would judge a frozen cluster.
//
// Either way the run fails with one finding of the checker "simulation"
// and no checks: what it recorded is cut short, and would read as writes
// lost and reads missing.

// cutShort is why a run stopped before its end.
type cutShort struct {
	anomaly string // checkers.Panic or checkers.EventLimit
	detail  string
}

// panicFrames is how many frames of the panicking code a finding names.
const panicFrames = 8

// runCatching runs fn and says why it stopped short: a panic, or the event
// limit reached; nil when it ran to its end.
func runCatching(s *Scripted, fn func()) (c *cutShort) {
	defer func() {
		if r := recover(); r != nil {
			c = &cutShort{checkers.Panic, "the run panicked: " + describePanic(r)}
		}
	}()
	fn()
	if s.Sim.LimitReached() {
		st := s.Sim.Stats()
		return &cutShort{checkers.EventLimit, fmt.Sprintf("the run reached the simulator's event limit, %d events, at virtual time %v (seed %d): a livelock, or a run larger than the limit allows", st.Events, s.Sim.Now(), s.Sim.Seed())}
	}
	return nil
}

// describePanic is the panic's value and the kafkasim frames it came
// from, innermost first, as "function (file:line)", up to the
// simulator's event loop. Called from the deferred recover, so the
// panicking frames are still on the stack; the runtime's own frames, the
// simulator's re-panic and runCatching are left out. Frames carry no
// addresses, so the text is the same on every replay of the run by the
// same build.
func describePanic(r any) string {
	pcs := make([]uintptr, 64)
	n := runtime.Callers(3, pcs)
	frames := runtime.CallersFrames(pcs[:n])
	var where []string
	for len(where) < panicFrames {
		f, more := frames.Next()
		if outerFrame(f.Function) {
			break
		}
		if keepFrame(f.Function) {
			file := f.File[strings.LastIndexByte(f.File, '/')+1:]
			where = append(where, fmt.Sprintf("%s (%s:%d)", strings.TrimPrefix(f.Function, "kafkasim/"), file, f.Line))
		}
		if !more {
			break
		}
	}
	msg := strings.ReplaceAll(fmt.Sprint(r), "\n", " ")
	if len(where) == 0 {
		return msg
	}
	return msg + "; at " + strings.Join(where, " <- ")
}

// outerFrame: the simulator's event loop or the scenario's play, which
// every run passes through; the frames that say where are inside them.
func outerFrame(fn string) bool {
	return strings.HasPrefix(fn, "kafkasim/sim.(*Sim).dispatch") || fn == "kafkasim/sim.(*Sim).Run" ||
		strings.HasPrefix(fn, "kafkasim/scenarios.play")
}

// keepFrame: a frame of kafkasim's own code other than the machinery that
// caught the panic.
func keepFrame(fn string) bool {
	return strings.HasPrefix(fn, "kafkasim/") &&
		!strings.HasPrefix(fn, "kafkasim/sim.(*Sim).Run.func") &&
		!strings.HasPrefix(fn, "kafkasim/scenarios.runCatching")
}

// result is the checkers' result for a run cut short: its one error
// finding, and no checks.
func (c *cutShort) result() checkers.Result {
	promise := checkers.PromiseNoPanic
	if c.anomaly == checkers.EventLimit {
		promise = checkers.PromiseEventLimit
	}
	return checkers.Result{
		Valid: checkers.ValidViolation,
		Violations: []checkers.Violation{{
			Checker: checkers.CheckerSimulation, Anomaly: c.anomaly, Error: true,
			Promise: promise, Detail: c.detail,
		}},
	}
}
