package scenarios

import (
	"fmt"
	"strings"
	"time"

	"kafkasim/faults"
	"kafkasim/model"
	"kafkasim/scenarios/fixture"
)

// groupsPubSub are the groups of the group scenarios: two groups on one
// topic, so that each is a queue (its members share the partitions) and
// together they are publish-subscribe (each receives every record).
var groupsPubSub = []fixture.GroupSpec{{Name: "g", Members: 3}, {Name: "h", Members: 2}}

// groupConfig is the safe baseline for group scenarios: sessions short
// enough that a crashed member is expelled within a fault window, and a
// small __consumer_offsets so that a run stays cheap.
func groupConfig() model.Config {
	kc := safe()
	kc.Consumer.SessionTimeout = 10 * time.Second
	kc.Consumer.HeartbeatInterval = 3 * time.Second
	kc.Group.OffsetsTopicPartitions = 5
	return kc
}

// cooperative is groupConfig with KIP-429's cooperative-sticky assignor.
func cooperative() model.Config {
	kc := groupConfig()
	kc.Consumer.AssignmentStrategy = model.AssignCooperativeSticky
	return kc
}

// eager is groupConfig with the range assignor (an eager protocol).
func eager() model.Config {
	kc := groupConfig()
	kc.Consumer.AssignmentStrategy = model.AssignRange
	return kc
}

// groupScenarios are the consumer-group scenarios that must pass, each
// for eager and for cooperative assignment.
func groupScenarios() []Scenario {
	var out []Scenario
	for _, v := range []struct {
		suffix, how string
		config      func() model.Config
	}{{"", "eager (range)", eager}, {"-cooperative", "cooperative-sticky", cooperative}} {
		scenario := func(name, what string, writer *ScheduleWriter) Scenario {
			return Scenario{
				Name:          name + v.suffix,
				Description:   what + "; " + v.how + " assignment",
				Spec:          fixture.Spec{Partitions: 6, Groups: groupsPubSub},
				Config:        v.config,
				Writer:        writer,
				Safety:        90 * time.Second,
				LivenessBound: 90 * time.Second,
			}
		}
		out = append(out,
			scenario("group-rebalance", "members of two groups crash, leave and rejoin while consuming",
				&ScheduleWriter{Kind: WriterMembers, Stream: "group-rebalance", Faults: []string{"crash {member}", "shutdown {member}", "power-loss {member}"}}),
			scenario("coordinator-failover", "the groups' coordinators (the __consumer_offsets leaders) crash or are isolated",
				&ScheduleWriter{Kind: WriterMembers, Stream: "coordinator-failover", Faults: []string{"crash coordinator-of {group}", "partition isolate coordinator-of {group}", "shutdown coordinator-of {group}"}}),
			scenario("group-partition", "a member is cut from its coordinator but not from the partition leaders, past its session (the zombie case)",
				&ScheduleWriter{Kind: WriterZombie, Stream: "group-partition"}))
	}
	return out
}

// memberFaults returns a schedule writer that, every 5 to 15 s of the
// safety phase, opens a 2 to 20 s window of one of the given faults; in
// each format %[1]s is a group and %[2]v one of its members, both drawn
// from the seed.
func memberFaults(name string, kinds ...string) func(s *Scripted) faults.Schedule {
	return func(s *Scripted) faults.Schedule {
		r := s.Sim.Rand("scenario/" + name)
		var b strings.Builder
		for t := s.ready + 5*time.Second; ; t += time.Duration(5+r.IntN(10)) * time.Second {
			end := t + time.Duration(2+r.IntN(18))*time.Second
			if end > s.safety {
				break
			}
			g := s.Groups[r.IntN(len(s.Groups))].Name
			ms := s.MembersOf(g)
			m := ms[r.IntN(len(ms))]
			fmt.Fprintf(&b, "from %v to %v %s\n", t, end, fmt.Sprintf(kinds[r.IntN(len(kinds))], g, int(m)))
		}
		return faults.MustParse(name, b.String())
	}
}

// zombieFaults cuts one member at a time from its group's coordinator for
// longer than its session (so that the coordinator expels it and gives
// its partitions away while it can still fetch from the leaders).
func zombieFaults(name string) func(s *Scripted) faults.Schedule {
	return func(s *Scripted) faults.Schedule {
		r := s.Sim.Rand("scenario/" + name)
		session := s.Config.Consumer.SessionTimeout
		var b strings.Builder
		for t := s.ready + 5*time.Second; ; t += session + time.Duration(5+r.IntN(10))*time.Second {
			end := t + session + time.Duration(2+r.IntN(10))*time.Second
			if end > s.safety {
				break
			}
			g := s.Groups[r.IntN(len(s.Groups))].Name
			ms := s.MembersOf(g)
			fmt.Fprintf(&b, "from %v to %v partition %d | coordinator-of %s\n", t, end, int(ms[r.IntN(len(ms))]), g)
		}
		return faults.MustParse(name, b.String())
	}
}
