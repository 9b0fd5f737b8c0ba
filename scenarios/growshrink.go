package scenarios

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"kafkasim/faults"
	"kafkasim/model"
	"kafkasim/scenarios/fixture"
)

// growAndShrink is a cluster that grows by a broker and shrinks by
// another, as an operator replaces a machine: a spare broker is added,
// some of the workload's partitions are reassigned to put a replica on
// it, then one of the original brokers is decommissioned (its replicas
// moved off, a controlled shutdown, UnregisterBroker), under light faults
// (WriterGrowAndShrink). Three brokers and one spare: after the
// decommission three remain, as many as every partition's replicas.
func growAndShrink() Scenario {
	return Scenario{
		Name: "grow-and-shrink",
		Description: "a spare broker added, replicas reassigned onto it, an original broker decommissioned " +
			"(replicas moved off, controlled shutdown, unregistered), under light faults",
		Config:        shaped,
		Spec:          fixture.Spec{Shape: realistic(), Groups: readersGroup, SpareBrokers: 1},
		Writer:        &ScheduleWriter{Kind: WriterGrowAndShrink, Stream: "grow-and-shrink"},
		Safety:        70 * time.Second,
		LivenessBound: 90 * time.Second,
	}
}

// growShrink writes WriterGrowAndShrink's schedule from the ready
// cluster, drawing from the stream in a fixed order:
//
//   - 5 s after readiness, add-broker of every spare, 2 s apart;
//   - from 15 s, every 1 to 3 s, each workload partition with probability
//     one half reassigned to its replicas with one of them (drawn)
//     replaced by a spare (drawn), which by then has registered;
//   - 35 s after readiness, decommission of one original broker (drawn);
//   - every 5 to 15 s of the safety phase, one light fault window of 1 to
//     4 s, extra latency on a member or a clogged link between two
//     members, which leave the ISR alone (a few hundred milliseconds,
//     far below replica.lag.time.max.ms), as rolling-upgrade's do.
func growShrink(stream string) func(s *Scripted) faults.Schedule {
	return func(s *Scripted) faults.Schedule {
		r := s.Sim.Rand("scenario/" + stream)
		var lines []timedLine
		add := func(t time.Duration, format string, a ...any) {
			lines = append(lines, timedLine{t, fmt.Sprintf(format, a...)})
		}
		t := s.ready + 5*time.Second
		for _, id := range s.Spares {
			add(t, "at %v add-broker %v", t, id)
			t += 2 * time.Second
		}
		if len(s.Spares) > 0 {
			t = s.ready + 15*time.Second
			for _, tp := range s.TPs {
				ps, ok := s.Partition(tp)
				if !ok || r.IntN(2) == 0 {
					continue
				}
				target := slices.Clone(ps.Replicas)
				target[r.IntN(len(target))] = s.Spares[r.IntN(len(s.Spares))]
				add(t, "at %v reassign %v to %s", t, tp, brokerList(target))
				t += time.Second + time.Duration(r.IntN(2000))*time.Millisecond
			}
		}
		gone := s.Brokers[r.IntN(len(s.Brokers))]
		add(s.ready+35*time.Second, "at %v decommission %v", s.ready+35*time.Second, gone)
		members := slices.Concat(s.Brokers, s.Spares)
		for at := s.ready + 5*time.Second; ; {
			at += 5*time.Second + time.Duration(r.IntN(10_000))*time.Millisecond
			end := at + time.Second + time.Duration(r.IntN(3_000))*time.Millisecond
			if end > s.safety {
				break
			}
			a := members[r.IntN(len(members))]
			if r.IntN(2) == 0 {
				add(at, "from %v to %v latency %v +%dms", at, end, a, 50+r.IntN(250))
			} else {
				o := members[(slices.Index(members, a)+1+r.IntN(len(members)-1))%len(members)]
				add(at, "from %v to %v clog %v %v +%dms", at, end, a, o, 50+r.IntN(250))
			}
		}
		slices.SortStableFunc(lines, func(a, b timedLine) int { return int(a.at - b.at) })
		var b strings.Builder
		for _, l := range lines {
			b.WriteString(l.text + "\n")
		}
		return faults.MustParse(stream, b.String())
	}
}

// timedLine is one schedule line and the time it starts, for sorting.
type timedLine struct {
	at   time.Duration
	text string
}

// brokerList writes "b1,b2,b4", as a reassign line takes it.
func brokerList(ids []model.BrokerID) string {
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = id.String()
	}
	return strings.Join(parts, ",")
}
