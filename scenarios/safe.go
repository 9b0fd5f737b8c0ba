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

// safeScenarios are the scenarios that must pass on every seed: the fixed
// configuration under faults it is designed to survive, on the realistic
// shape (realistic.go): three topics, keyed and keyless producers, and a
// consumer group beside the assigning consumer.
func safeScenarios() []Scenario {
	return slices.Concat(crashScenarios(), slowScenarios(), swarmScenarios())
}

// crashScenarios are the safe scenarios of crashes, isolations, power
// losses and restarts.
func crashScenarios() []Scenario {
	return []Scenario{
		{
			Name:          "baseline",
			Description:   "no faults: every acknowledged record is replicated and read",
			Config:        shaped,
			Spec:          fixture.Spec{Shape: realistic(), Groups: readersGroup},
			Safety:        20 * time.Second,
			LivenessBound: 30 * time.Second,
		},
		{
			Name:          "leader-failover",
			Description:   "partition leaders crash repeatedly and restart",
			Config:        shaped,
			Spec:          fixture.Spec{Shape: realistic(), Groups: readersGroup},
			Writer:        everyWriter("leader-failover", "crash leader-of {partition}"),
			Safety:        60 * time.Second,
			LivenessBound: 60 * time.Second,
		},
		{
			Name:          "leader-isolation",
			Description:   "partition leaders partitioned away, two-way and one-way",
			Config:        shaped,
			Spec:          fixture.Spec{Shape: realistic(), Groups: readersGroup},
			Writer:        everyWriter("leader-isolation", "partition isolate leader-of {partition}", "partition isolate leader-of {partition} from brokers", "partition oneway leader-of {partition} isr-follower {partition}"),
			Safety:        60 * time.Second,
			LivenessBound: 60 * time.Second,
		},
		{
			Name:        "power-loss",
			Description: "brokers lose power one at a time: unsynced data is lost, the ISR and ELR keep what was committed",
			Config:      shaped,
			Spec:        fixture.Spec{Shape: realistic(), Groups: readersGroup},
			// More than the 30 s writeback apart, so that the durability
			// promise holds and every acknowledged write must survive
			// (chaos overlaps power losses too).
			Writer:        spacedWriter("power-loss", 31*time.Second, 40*time.Second, "power-loss random-broker", "power-loss leader-of {partition}"),
			Safety:        150 * time.Second,
			LivenessBound: 60 * time.Second,
		},
		{
			Name:          "rolling-restart",
			Description:   "clean restarts, one broker at a time",
			Config:        shaped,
			Spec:          fixture.Spec{Shape: realistic(), Groups: readersGroup},
			Writer:        &ScheduleWriter{Kind: WriterRollingRestart},
			Safety:        60 * time.Second,
			LivenessBound: 60 * time.Second,
		},
		{
			Name:        "rolling-upgrade",
			Description: "each broker in turn stopped cleanly, restarted and waited for until back in the ISR, its leaderships given back by the controller's leader balance, with light faults throughout",
			Config:      rollingUpgradeConfig,
			Spec:        fixture.Spec{Shape: realistic(), Groups: readersGroup},
			Writer:      &ScheduleWriter{Kind: WriterRollingUpgrade, Stream: "rolling-upgrade"},
			// Every broker twice (the rounds that 30 s a broker fit),
			// then quiet: the script waits for the ISR, not 30 s.
			Safety:        185 * time.Second,
			LivenessBound: 60 * time.Second,
		},
		{
			Name:          "controller-failover",
			Description:   "the active controller crashes or loses power: another controller of the quorum takes over, and the old one restarts from its log",
			Config:        shaped,
			Spec:          fixture.Spec{Shape: realistic(), Groups: readersGroup},
			Writer:        everyWriter("controller-failover", "crash controller", "power-loss controller"),
			Safety:        60 * time.Second,
			LivenessBound: 60 * time.Second,
		},
	}
}

// slowScenarios are the safe scenarios of slow links and pauses.
func slowScenarios() []Scenario {
	return []Scenario{
		{
			Name:          "slow-follower",
			Description:   "clogged links and pauses push followers in and out of the ISR",
			Config:        shaped,
			Spec:          fixture.Spec{Shape: realistic(), Groups: readersGroup},
			Writer:        everyWriter("slow-follower", "latency isr-follower {partition} +300ms", "pause isr-follower {partition}", "clog leader-of {partition} isr-follower {partition} +2s"),
			Safety:        60 * time.Second,
			LivenessBound: 60 * time.Second,
		},
	}
}

// swarmScenarios are the safe scenarios whose faults a swarm draws from
// the seed.
func swarmScenarios() []Scenario {
	return []Scenario{
		{
			Name:        "chaos",
			Description: "a swarm of every fault kind, drawn from the seed",
			Config:      shaped,
			// No consumer group: the swarm's overlapping power losses may
			// take every ISR replica's unflushed tail of a
			// __consumer_offsets partition, and with it the group's
			// metadata (GroupMetadataManager.loadGroupsAndOffsets rebuilds
			// a group from that log), so its generations start again at
			// 1; the group checkers know which data partitions lost their
			// disks but not which coordinator partitions did, and would
			// report two owners in one generation.
			Spec:          fixture.Spec{Shape: realistic()},
			Swarm:         &faults.SwarmOptions{Kinds: faults.SwarmKinds()},
			Safety:        60 * time.Second,
			LivenessBound: 90 * time.Second,
		},
		{
			Name:        "reassign-under-chaos",
			Description: "the chaos swarm with partition reassignments, their cancellations and preferred elections drawn among its faults, on five brokers",
			Config:      shaped,
			// Five brokers, so that a reassignment of a three-replica
			// partition moves replicas to brokers that held none; no
			// consumer group, for chaos's reason.
			Spec:          fixture.Spec{Brokers: 5, Shape: realistic()},
			Swarm:         &faults.SwarmOptions{Kinds: slices.Concat(faults.SwarmKinds(), faults.SwarmOperations())},
			Safety:        60 * time.Second,
			LivenessBound: 90 * time.Second,
		},
		topicsUnderChaos(),
		{
			Name:        "txn-chaos",
			Description: "the chaos swarm over transactional producers, read_committed consumers and the transaction coordinators' brokers",
			Config:      txnConfig,
			// No consumer group, for chaos's reason. The transactional
			// producer writes topic txn beside the realistic shape's
			// producers; every consumer reads read_committed.
			Spec:          fixture.Spec{Shape: realistic(), Txn: &fixture.TxnSpec{}},
			Swarm:         &faults.SwarmOptions{Kinds: txnChaosKinds()},
			Safety:        60 * time.Second,
			LivenessBound: 90 * time.Second,
		},
		eosPipeline(),
		growAndShrink(),
	}
}

// txnChaosKinds are the swarm's kinds less power losses. Overlapping
// power losses may take every ISR replica's unflushed tail of a
// __transaction_state partition (Kafka does not fsync it either): the
// reloaded coordinator's epochs roll back, the producer's next session
// is given an epoch it already used, and the partition leaders take its
// first batches for duplicates of the old session's, acknowledging
// records at offsets that hold others. That is Kafka losing acknowledged
// data, which the durability promise leaves out, as chaos leaves out
// consumer groups for the same reason; power losses one at a time are
// the power-loss scenario's.
func txnChaosKinds() []faults.Kind {
	return slices.DeleteFunc(faults.SwarmKinds(), func(k faults.Kind) bool { return k == faults.KindPowerLoss })
}

// txnConfig is shaped with read_committed consumers, a
// __transaction_state of 3 partitions (Kafka's 50 would replicate 50
// partitions for one transactional id) and transaction.timeout.ms of 10 s,
// Kafka Streams' exactly-once default (StreamsConfig sets it for its
// producers) rather than the producer's 60 s: a transaction stuck behind
// a fault is then aborted by its coordinator within the safety phase, and
// the producer is fenced and starts again, which the swarm would seldom
// reach in 60 s.
func txnConfig() model.Config {
	kc := shaped()
	kc.Consumer.IsolationLevel = model.ReadCommitted
	kc.Txn.StateLogPartitions = 3
	kc.Producer.TransactionTimeout = 10 * time.Second
	return kc
}

// spaced returns a schedule writer that, every gapMin to gapMax (drawn
// from the seed) of the safety phase, opens a 2 to 12 s window of one of
// the given faults (a format with the partition as %[1]s), on a
// partition drawn from the seed (WriterSpaced, everyWriter).
func spaced(name string, gapMin, gapMax time.Duration, kinds ...string) func(s *Scripted) faults.Schedule {
	return func(s *Scripted) faults.Schedule {
		r := s.Sim.Rand("scenario/" + name)
		var b strings.Builder
		for t := s.ready + 5*time.Second; ; t += gapMin + time.Duration(r.Int64N(int64(gapMax-gapMin))) {
			end := t + time.Duration(2+r.IntN(10))*time.Second
			if end > s.safety {
				break
			}
			tp := s.TPs[r.IntN(len(s.TPs))]
			what := kinds[r.IntN(len(kinds))]
			if strings.Contains(what, "%") {
				what = fmt.Sprintf(what, tp)
			}
			fmt.Fprintf(&b, "from %v to %v %s\n", t, end, what)
		}
		return faults.MustParse(name, b.String())
	}
}

// rollingRestart shuts every broker down cleanly in turn, 5 s each, 10 s
// apart, as an operator upgrading a cluster does.
func rollingRestart(s *Scripted) faults.Schedule {
	var b strings.Builder
	t := s.ready + 5*time.Second
	for t+5*time.Second <= s.safety {
		for _, id := range s.Brokers {
			if t+5*time.Second > s.safety {
				break
			}
			fmt.Fprintf(&b, "from %v to %v shutdown %v\n", t, t+5*time.Second, id)
			t += 10 * time.Second
		}
	}
	return faults.MustParse("rolling-restart", b.String())
}

// rollingUpgradeConfig is shaped with the leader balance checked every 10
// s rather than Kafka's 300 s, so that a restarted broker gets its
// leaderships back within the 30 s before the next broker stops.
func rollingUpgradeConfig() model.Config {
	kc := shaped()
	kc.Controller.LeaderImbalanceCheckIntervalSeconds = 10
	return kc
}

// rollingUpgrade writes WriterRollingUpgrade's schedule: 5 s after
// readiness, one rolling-restart line (rolling.go) of as many rounds as
// 30 s slots per broker fit the safety phase (two in rolling-upgrade's 185
// s): each broker in turn shut down cleanly, restarted 5 s after it is
// down, and waited for until it is back in the ISR of its partitions
// before the next stops, as an operator's script waits; and, one per
// slot, a light fault window of 1 to 4 s, drawn from the stream: extra
// latency on a broker, or a clogged link between two brokers. Both leave
// the ISR alone (300 ms is far below replica.lag.time.max.ms), so every
// restarted broker rejoins. The slots are the fixed 30 s the script
// waited before it waited for the ISR, so the light faults are the ones
// the same seed drew then.
func rollingUpgrade(stream string) func(s *Scripted) faults.Schedule {
	return func(s *Scripted) faults.Schedule {
		r := s.Sim.Rand("scenario/" + stream)
		var b strings.Builder
		start := s.ready + 5*time.Second
		slots := 0
		for t := start; t+30*time.Second <= s.safety; {
			for range s.Brokers {
				if t+30*time.Second > s.safety {
					break
				}
				slots++
				at := t + 12*time.Second + time.Duration(r.IntN(10_000))*time.Millisecond
				end := at + time.Second + time.Duration(r.IntN(3_000))*time.Millisecond
				a := s.Brokers[r.IntN(len(s.Brokers))]
				if r.IntN(2) == 0 {
					fmt.Fprintf(&b, "from %v to %v latency %v +%dms\n", at, end, a, 50+r.IntN(250))
				} else {
					o := s.Brokers[(slices.Index(s.Brokers, a)+1+r.IntN(len(s.Brokers)-1))%len(s.Brokers)]
					fmt.Fprintf(&b, "from %v to %v clog %v %v +%dms\n", at, end, a, o, 50+r.IntN(250))
				}
				t += 30 * time.Second
			}
		}
		if rounds := slots / len(s.Brokers); rounds > 0 {
			return faults.MustParse(stream, fmt.Sprintf("at %v rolling-restart %d\n", start, rounds)+b.String())
		}
		return faults.MustParse(stream, b.String())
	}
}
