package scenarios

import "time"

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
// failure, each a fault with the drawn partition as {partition}: a process
// crash (its sockets close, peers learn at once), a power loss and a
// pause (nothing is announced; a paused kernel still accepts what
// arrives), and a silent partition that cuts the leader from every other
// node, clients included.
var leaderLossKinds = []struct{ name, fault, description string }{
	{"leader-crash", "crash leader-of {partition}", "one partition leader's process crashes for 2-40 s: its sockets close, so peers and clients learn at once"},
	{"leader-power-loss", "power-loss leader-of {partition}", "one partition leader's machine loses power for 2-40 s: nothing is announced, peers and clients find out by their own timeouts"},
	{"leader-pause", "pause leader-of {partition}", "one partition leader's process is paused for 2-40 s: its kernel still accepts requests, answered when it resumes"},
	{"leader-cut", "partition isolate leader-of {partition} from all", "one partition leader is silently cut from every node, clients included, for 2-40 s: what is sent waits in TCP retransmission"},
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
			// Every kind draws from the stream "leader-loss", so the four
			// scenarios pick the same partition, start and length on a seed.
			Writer: &ScheduleWriter{
				Kind: WriterOnce, Stream: "leader-loss", Faults: []string{k.fault},
				Start: leaderLossStart, Spread: leaderLossSpread,
				WindowMin: leaderLossMin, WindowMax: leaderLossMax,
			},
			// The fault, then 15 s of writes under the recovered leader.
			Safety:        leaderLossStart + leaderLossSpread + leaderLossMax + 15*time.Second,
			LivenessBound: 60 * time.Second,
		})
	}
	return out
}
