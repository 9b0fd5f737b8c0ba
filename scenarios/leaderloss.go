package scenarios

import (
	"fmt"
	"time"

	"kafkasim/faults"
)

// The leader-loss study's fault lasts a time drawn from [leaderLossMin,
// leaderLossMax) to the millisecond: from shorter than
// broker.session.timeout.ms (9 s: no election is needed) to longer than
// request.timeout.ms (30 s: every client has given up on the old leader
// by its own timeout), so that each kind's curve shows both how the
// failure is noticed and how its end is (a restarted process, a resumed
// one, a healed cut whose retransmissions must first get through).
const (
	leaderLossMin = 2 * time.Second
	leaderLossMax = 40 * time.Second
)

// leaderLossStart is the earliest the study's one fault starts after
// readiness: time enough for the producer to have acknowledged writes to
// every partition, so that the gap it leaves is measured from a write.
// The fault starts at a time drawn from the next leaderLossSpread, so
// that over many seeds it falls at every phase of the brokers' 2 s
// heartbeats and the producer's sends, as a real failure does.
const (
	leaderLossStart  = 5 * time.Second
	leaderLossSpread = 10 * time.Second
)

// leaderLossKinds are the four ways the study delivers one leader's
// failure, each a schedule line with the partition as %[1]s: a process
// crash (its sockets close, peers learn at once), a power loss and a
// pause (nothing is announced; a paused kernel still accepts what
// arrives), and a silent partition that cuts the leader from every other
// node, clients included.
var leaderLossKinds = []struct{ name, fault, description string }{
	{"leader-crash", "crash leader-of %[1]s", "one partition leader's process crashes for 2-40 s: its sockets close, so peers and clients learn at once"},
	{"leader-power-loss", "power-loss leader-of %[1]s", "one partition leader's machine loses power for 2-40 s: nothing is announced, peers and clients find out by their own timeouts"},
	{"leader-pause", "pause leader-of %[1]s", "one partition leader's process is paused for 2-40 s: its kernel still accepts requests, answered when it resumes"},
	{"leader-cut", "partition isolate leader-of %[1]s from all", "one partition leader is silently cut from every node, clients included, for 2-40 s: what is sent waits in TCP retransmission"},
}

// leaderLossScenarios are the leader-loss study: the same failure (the
// leader of one partition drawn from the seed, gone for a time drawn from
// the seed, once per run) under each of leaderLossKinds, so that sweeps over the
// same seeds compare how long writes stop for each (docs/leader-loss.md).
// Each is also a safe scenario: the run must pass its checkers.
func leaderLossScenarios() []Scenario {
	out := make([]Scenario, 0, len(leaderLossKinds))
	for _, k := range leaderLossKinds {
		out = append(out, Scenario{
			Name:        k.name,
			Description: k.description,
			Config:      safe,
			Schedule:    leaderLoss(k.name, k.fault),
			// The fault, then 15 s of writes under the recovered leader.
			Safety:        leaderLossStart + leaderLossSpread + leaderLossMax + 15*time.Second,
			LivenessBound: 60 * time.Second,
		})
	}
	return out
}

// leaderLoss writes the study's one fault: fault (a format with the
// partition as %[1]s) on a partition drawn from the seed, starting within
// leaderLossSpread of leaderLossStart after readiness (to the
// millisecond) and lasting a time drawn from [leaderLossMin,
// leaderLossMax). Every kind draws from a
// stream of the same name, so the four scenarios pick the same partition
// and start on the same seed.
func leaderLoss(name, fault string) func(s *Scripted) faults.Schedule {
	return func(s *Scripted) faults.Schedule {
		r := s.Sim.Rand("scenario/leader-loss")
		tp := s.TPs[r.IntN(len(s.TPs))]
		at := s.ready + leaderLossStart + time.Duration(r.Int64N(leaderLossSpread.Milliseconds()))*time.Millisecond
		d := leaderLossMin + time.Duration(r.Int64N((leaderLossMax-leaderLossMin).Milliseconds()))*time.Millisecond
		line := fmt.Sprintf("from %v to %v %s\n", at, at+d, fmt.Sprintf(fault, tp))
		return faults.MustParse(name, line)
	}
}
