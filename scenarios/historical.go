package scenarios

import (
	"fmt"
	"kafkasim/checkers"
	"kafkasim/scenarios/fixture"
	"slices"
	"time"

	"kafkasim/faults"
	"kafkasim/model"
	"kafkasim/nodes/broker"
)

// Historical is a scripted replay of a data-loss bug from Kafka's history:
// the configuration that had it, the same configuration with the fix, and
// the sequence of faults that triggers it. It is played as a Scenario
// (Scenario, FixedScenario): under Buggy it must break an invariant, under
// Fixed it must not.
type Historical struct {
	Name    string
	Summary string
	// Seed is the seed the replay was written against: the scenario's own
	// (Scenario.Seed), which go test and kafkasim run without -seed play.
	Seed uint64
	// Expect is the anomaly the checkers must name under Buggy, one of
	// their constants (checkers.AckedWriteLost, ...).
	Expect Expect
	// Spec is the bug's cluster: Brokers (default 3), and Partitions of
	// topic "t" (default 1) and Groups consuming it for the consumer-group
	// bugs.
	fixture.Spec
	// Buggy and Fixed are the settings, by Kafka's names, applied to the
	// safe baseline: the historical configuration and the fixed one.
	Buggy []string
	Fixed []string
	// Schedule writes the faults for a ready fixture, naming the nodes
	// that lead and follow at that moment; ProduceUntil stops the
	// producer; the run lasts until End (absolute virtual times).
	Schedule     func(s *Scripted) faults.Schedule
	ProduceUntil time.Duration
	End          time.Duration
	// LivenessBound, if set, heals every fault at End and runs the
	// liveness phase (Scenario.LivenessBound): for a bug whose anomaly is
	// that the cluster never converges (a hanging transaction, a replica
	// that never rejoins), which shows only there.
	LivenessBound time.Duration
}

// Scenario is h as a catalog scenario under its historical configuration:
// its own seed, the anomaly it must show, and its faults written by the
// catalog's script writer (so that kafkasim show can print it as an
// experiment). Run plays it as it plays every scenario.
func (h Historical) Scenario() Scenario {
	f := h.Spec
	f.Partitions = max(f.Partitions, 1)
	return Scenario{
		Name:          h.Name,
		Description:   h.Summary,
		Spec:          f,
		Config:        h.BuggyConfig,
		Writer:        &ScheduleWriter{Kind: WriterScript, Script: h.Name},
		ProduceUntil:  h.ProduceUntil,
		Until:         h.End,
		LivenessBound: h.LivenessBound,
		Seed:          h.Seed,
		Expect:        h.Expect,
	}
}

// FixedScenario is the same scenario under the fixed configuration, which
// must not show h.Expect; it is not in the catalog.
func (h Historical) FixedScenario() Scenario {
	sc := h.Scenario()
	sc.Config, sc.Expect = h.FixedConfig, Pass
	return sc
}

// safe is the fixed-era baseline: rf 3, acks=all with idempotence,
// min.insync.replicas 2, clean election, epoch truncation, ELR on.
func safe() model.Config {
	kc := model.DefaultConfig()
	kc.Broker.DefaultReplicationFactor = 3
	kc.Topic.MinInsyncReplicas = 2
	kc.Consumer.AutoOffsetReset = model.ResetEarliest
	return kc
}

// Catalog of the historical bugs (README, "The simulated cluster": each
// must lose or diverge under its historical configuration).
var HistoricalBugs = []Historical{
	{
		Name:         "kip101-hw-truncation",
		Summary:      "a follower truncates to its lagging high watermark, then is elected: a committed record is lost",
		Expect:       checkers.AckedWriteLost,
		Seed:         7,
		Buggy:        []string{"truncation=high-watermark", "eligible.leader.replicas.enable=false"},
		Fixed:        []string{"eligible.leader.replicas.enable=false"},
		Schedule:     kip101Schedule,
		ProduceUntil: 2 * time.Second,
		End:          60 * time.Second,
	},
	{
		Name:         "kip101-divergence",
		Summary:      "both replicas of an rf=2 partition lose different unflushed tails to power losses; the follower truncates to its high watermark and the logs diverge",
		Expect:       checkers.ReplicaDivergence,
		Seed:         17,
		Spec:         fixture.Spec{Brokers: 2},
		Buggy:        slices.Concat(kip101DivergenceEra, []string{"truncation=high-watermark"}),
		Fixed:        slices.Concat(kip101DivergenceEra, []string{"truncation=leader-epoch"}),
		Schedule:     kip101DivergenceSchedule,
		ProduceUntil: 115 * time.Second,
		End:          140 * time.Second,
	},
	{
		Name:         "jepsen-2013",
		Summary:      "the ISR shrinks to the leader alone, it acknowledges writes and dies; unclean election picks a stale replica",
		Expect:       checkers.AckedWriteLost,
		Seed:         3,
		Buggy:        []string{"min.insync.replicas=1", "unclean.leader.election.enable=true", "eligible.leader.replicas.enable=false"},
		Fixed:        []string{"min.insync.replicas=1", "eligible.leader.replicas.enable=false"},
		Schedule:     jepsen2013Schedule,
		ProduceUntil: 95 * time.Second,
		End:          120 * time.Second,
	},
	{
		Name:         "acks1-failover",
		Summary:      "with acks=1 the leader acknowledges alone and dies before the followers fetch",
		Expect:       checkers.LostWrite,
		Seed:         5,
		Buggy:        []string{"acks=1", "enable.idempotence=false", "eligible.leader.replicas.enable=false"},
		Fixed:        []string{"eligible.leader.replicas.enable=false"},
		Schedule:     acks1Schedule,
		ProduceUntil: 30 * time.Second,
		End:          60 * time.Second,
	},
	{
		Name:         "kip279-divergence",
		Summary:      "leaders alternate across crashes (rf 2, unclean election); an end offset without its epoch truncates too little",
		Expect:       checkers.ReplicaDivergence,
		Seed:         11,
		Spec:         fixture.Spec{Brokers: 2},
		Buggy:        slices.Concat(kip279Era, []string{"truncation=leader-epoch-kip101"}),
		Fixed:        slices.Concat(kip279Era, []string{"truncation=leader-epoch"}),
		Schedule:     kip279Schedule,
		ProduceUntil: 50 * time.Second,
		End:          70 * time.Second,
	},
	{
		Name:    "kip966-last-replica",
		Summary: "the ISR shrinks to one broker, which loses its unflushed tail in a power loss and is re-elected",
		Expect:  checkers.AckedWriteLost,
		Seed:    13,
		// replica.lag.time.max.ms is 10 s so that the ISR shrinks before
		// the writes it holds are written back (30 s).
		Buggy:        []string{"eligible.leader.replicas.enable=false", "replica.lag.time.max.ms=10s"},
		Fixed:        []string{"replica.lag.time.max.ms=10s"},
		Schedule:     kip966Schedule,
		ProduceUntil: 60 * time.Second,
		End:          90 * time.Second,
	},
	{
		Name:     "group-zombie",
		Summary:  "a consumer cut from its coordinator keeps consuming after its session expired and its partitions went to another member (Kafka's protocol allows it: reported as allowed; consumer.self.fencing=true is kafkasim's fix)",
		Expect:   checkers.DoubleOwner,
		Seed:     1,
		Spec:     fixture.Spec{Partitions: 6, Groups: groupsPubSub},
		Buggy:    slices.Concat(groupEra, []string{"consumer.self.fencing=false"}),
		Fixed:    slices.Concat(groupEra, []string{"consumer.self.fencing=true"}),
		Schedule: groupZombieSchedule,
		End:      60 * time.Second,
	},
	{
		Name:     "offset-commit-lost",
		Summary:  "the __consumer_offsets follower truncates to its lagging high watermark and is elected: the new coordinator loads offsets without an acknowledged commit",
		Expect:   checkers.CommitRegression,
		Seed:     1,
		Spec:     fixture.Spec{Partitions: 6, Groups: groupsPubSub},
		Buggy:    slices.Concat(groupEra, []string{"truncation=high-watermark", "eligible.leader.replicas.enable=false"}),
		Fixed:    slices.Concat(groupEra, []string{"eligible.leader.replicas.enable=false"}),
		Schedule: offsetCommitLostSchedule,
		End:      60 * time.Second,
	},
	{
		Name:    "kafka-17754-delayed-endtxn",
		Summary: "an EndTxn(commit) the producer gave up on and sent again reaches the coordinator late, in the producer's next transaction, and commits it halfway (transaction.version 0: the same producer id and epoch; KIP-890 part 2's epoch bump fences it)",
		Expect:  checkers.AbortedRead,
		Seed:    1,
		Spec:    fixture.Spec{Txn: &fixture.TxnSpec{}},
		// transaction.partition.verification.enable stays true, as in
		// the 3.x releases the bug was found in (KIP-890 part 1): the
		// partitions are in the next transaction, so it does not help.
		Buggy:        slices.Concat(txnEra, []string{"transaction.version=0"}),
		Fixed:        slices.Concat(txnEra, []string{"transaction.version=2"}),
		Schedule:     kafka17754Schedule,
		ProduceUntil: 60 * time.Second,
		End:          75 * time.Second,
	},
	{
		Name:    "hanging-transaction",
		Summary: "a produce of an aborted transaction, given up on by the producer, reaches the leader after the abort marker and opens a transaction nothing ends: the last stable offset stays behind it (KIP-890 part 1's verification refuses it)",
		Expect:  checkers.HangingTransaction,
		Seed:    1,
		Spec:    fixture.Spec{Txn: &fixture.TxnSpec{Stop: hangingTxnStop}},
		// transaction.version 0 in both, so that the epoch of the
		// markers is the late batch's (as a client-driven abort under
		// version 0 or 1 writes them); delivery.timeout.ms 35 s so that
		// the batch is given up on within the clog.
		Buggy:         slices.Concat(txnEra, []string{"transaction.version=0", "delivery.timeout.ms=35s", "transaction.partition.verification.enable=false"}),
		Fixed:         slices.Concat(txnEra, []string{"transaction.version=0", "delivery.timeout.ms=35s", "transaction.partition.verification.enable=true"}),
		Schedule:      hangingTxnSchedule,
		End:           60 * time.Second,
		LivenessBound: 60 * time.Second,
	},
	kafka14616,
}

// groupEra is groupConfig's settings, by name, for the group bugs.
var groupEra = []string{"session.timeout.ms=10s", "heartbeat.interval.ms=3s", "offsets.topic.num.partitions=5"}

// kip279Era is the KIP-279 setting: two replicas, unclean election,
// acks=1, no ELR; and batch.size=1, one record a batch, so that every
// offset is a batch boundary. The follower truncates to the end offset the
// leader names, and a log truncates whole batches (Kafka's
// LogSegment.truncateTo cuts at the batch holding the offset): when the
// producer sends its backlog as one batch after a failover, the truncation
// point falls inside it and the whole batch goes, hiding the divergence.
// On the TCP network the producer's backlogs are longer (a silent peer is
// detected by its timeouts), and 15 of seeds 1-200 missed the divergence
// that way.
var kip279Era = []string{
	"default.replication.factor=2", "min.insync.replicas=1", "unclean.leader.election.enable=true",
	"eligible.leader.replicas.enable=false", "acks=1", "enable.idempotence=false", "batch.size=1",
}

// kip101DivergenceEra: two replicas, acks=1, unclean election (a KRaft
// controller removes a broker that restarted uncleanly from the ISR, so
// only an unclean election lets the replica with the shorter log lead, as
// a ZooKeeper-era restart did), no ELR; batch.size=1 for the reason
// kip279Era gives: the returning follower's fetch offset must be a batch
// boundary of the new leader's log, or the leader answers with the batch
// that holds it, which the follower cannot append (Kafka's
// UnexpectedAppendOffsetException) and it never rejoins.
var kip101DivergenceEra = []string{
	"default.replication.factor=2", "min.insync.replicas=1", "unclean.leader.election.enable=true",
	"eligible.leader.replicas.enable=false", "acks=1", "enable.idempotence=false", "batch.size=1",
}

// BuggyConfig is the historical configuration: the safe baseline with the
// bug's settings, by Kafka's names.
func (h Historical) BuggyConfig() model.Config { return withSettings(h.Buggy) }

// FixedConfig is the same configuration with the fix.
func (h Historical) FixedConfig() model.Config { return withSettings(h.Fixed) }

func withSettings(set []string) model.Config {
	kc := safe()
	if err := kc.SetAll(set); err != nil {
		panic(fmt.Sprintf("scenarios: historical settings %q: %v", set, err))
	}
	return kc
}

// schedule parses a schedule written for the fixture's nodes.
func schedule(name, format string, args ...any) faults.Schedule {
	return faults.MustParse(name, fmt.Sprintf(format, args...))
}

// kip101Schedule: follower C holds the last acknowledged record but its
// high watermark lags (the update rides on the next fetch response). C is
// cut off from the brokers (not the controller) before that response, and
// leader A crashes: the controller elects B, and C, becoming B's follower,
// truncates to its high watermark if the configuration says so. B crashes
// before C can re-fetch: C, still in the ISR, is elected. (The producer
// stops at 2 s.)
//
// The faults start at 2.1 s, or later if C does not yet hold the records
// the leader has committed with its high watermark behind them: a
// follower that started in fetch backoff (a fetch that reached the leader
// before the leader knew it led waits replica.fetch.backoff.ms) may not
// have caught up by then, and nothing was acknowledged to lose (2 seeds in
// 260 before). A twin of the fixture (Scripted.probe) runs on, a
// millisecond at a time, until C is in that state, and the schedule is
// written for that moment.
func kip101Schedule(s *Scripted) faults.Schedule {
	tp := s.TPs[0]
	p := s.probeUntil(2100*time.Millisecond, 10*time.Second, func(p *Scripted) bool { return unaware(p, tp) })
	at := p.Sim.Now()
	a, f := p.LeaderAndFollowers(tp)
	return schedule("kip101-hw-truncation", `
from %v to 30s partition isolate %v from brokers
from %v to 30s crash %v
from %v to 30s crash %v
`, at, f[1], at+100*time.Millisecond, a, at+11900*time.Millisecond, f[0])
}

// jepsen2013Schedule: the leader is cut off from its followers; the ISR
// shrinks to it alone at the first isr-expiration check after
// replica.lag.time.max.ms (by 50 s), it acknowledges writes, and crashes.
// The cut comes at 2 s, or once every replica has caught up (caughtUp).
func jepsen2013Schedule(s *Scripted) faults.Schedule {
	at := caughtUp(s, s.TPs[0], 2*time.Second)
	a, _ := s.LeaderAndFollowers(s.TPs[0])
	return schedule("jepsen-2013", `
from %v to 75s partition isolate %v from brokers
from 55s to 85s crash %v
`, at, a, a)
}

// caughtUp returns the first time from t on at which every replica of tp
// holds the leader's whole log and the leader's high watermark covers it,
// found on a twin of the fixture (Scripted.probe); t itself when they
// already do, t+10s at the latest. A follower whose first fetch reached
// the leader before the leader knew it led waits replica.fetch.backoff.ms
// (1 s) before it fetches again, as in Kafka, and may not have started
// replicating by t: a leader cut off then had acknowledged nothing, and
// the bug had nothing to lose (one seed in 200).
func caughtUp(s *Scripted, tp model.TopicPartition, t time.Duration) time.Duration {
	p := s.probeUntil(t, t+10*time.Second, func(p *Scripted) bool { return replicated(p, tp) })
	return p.Sim.Now()
}

// replicated reports whether every replica of tp holds its leader's log
// and the leader's high watermark is at its log end.
func replicated(s *Scripted, tp model.TopicPartition) bool {
	a, _ := s.LeaderAndFollowers(tp)
	reps := s.Replicas(tp)
	leo := model.NoOffset
	for _, r := range reps {
		if r.Broker == a {
			if r.HW != r.LEO {
				return false
			}
			leo = r.LEO
		}
	}
	for _, r := range reps {
		if r.LEO != leo {
			return false
		}
	}
	return leo != model.NoOffset
}

// acks1Schedule: the followers are cut off, the leader acknowledges writes
// on its own append, then crashes before they could fetch them.
func acks1Schedule(s *Scripted) faults.Schedule {
	a, _ := s.LeaderAndFollowers(s.TPs[0])
	return schedule("acks1-failover", `
from 2s to 20s partition isolate %v from brokers
from 3s to 20s crash %v
`, a, a)
}

// kip279Schedule: A leads; cut off, it writes alone and crashes; B (still
// in the ISR) is elected and writes at the same offsets under a new epoch,
// then crashes; A restarts and is elected uncleanly, writing under a third
// epoch; B restarts as A's follower and must find where they diverge.
// The cut comes at 2 s, or once both replicas have caught up (caughtUp),
// and the crashes keep their distance from it.
func kip279Schedule(s *Scripted) faults.Schedule {
	at := caughtUp(s, s.TPs[0], 2*time.Second)
	a, f := s.LeaderAndFollowers(s.TPs[0])
	return schedule("kip279-divergence", `
from %v to 40s partition isolate %v from brokers
from %v to 32s crash %v
from %v to 40s crash %v
`, at, a, at+time.Second, a, at+18*time.Second, f[0])
}

// kip966Schedule: writes commit with the full ISR; the followers are cut
// off so that the ISR shrinks to the leader alone (replica.lag.time.max.ms
// is 10 s so that this comes first); the leader loses power while those
// writes are still in its page cache (younger than the 30 s writeback).
func kip966Schedule(s *Scripted) faults.Schedule {
	a, _ := s.LeaderAndFollowers(s.TPs[0])
	return schedule("kip966-last-replica", `
from 5s to 45s partition isolate %v from brokers
from 25s to 26s power-loss %v
`, a, a)
}

// kip101DivergenceSchedule: leader A is cut off from follower B and loses
// power at 45 s, keeping only what is older than the 30 s writeback; B
// leads, then loses power at 56 s, keeping more than A did; A, back, is
// elected uncleanly and writes at offsets where B still holds older
// records; B returns as its follower. Truncating to its high watermark
// (which covers its whole surviving log) keeps B's records there: one
// offset, two records. With epochs, B finds where A's epoch began.
//
// B stays off until 105 s: A must have written past B's log end by then.
// B's power loss announces nothing, so the producer, whose request to B
// is unanswered, only turns to A when its request times out
// (request.timeout.ms, 30 s, about 86 s) or B's rebooted kernel resets
// the connection; B back at 75 s, as on the announcing network, found A's
// log still shorter than its own and cut back to it (out of range), with
// nothing diverging. The producer runs to 115 s so that A writes past B's
// return.
func kip101DivergenceSchedule(s *Scripted) faults.Schedule {
	a, f := s.LeaderAndFollowers(s.TPs[0])
	return schedule("kip101-divergence", `
from 40s to 70s partition isolate %v from brokers
from 45s to 60s power-loss %v
from 56s to 105s power-loss %v
`, a, a, f[0])
}

// groupZombieSchedule cuts the first member of group g from its
// coordinator (not from the partition leaders) for three sessions: the
// coordinator expels it and hands its partitions to the others, while a
// classic consumer, hearing nothing, keeps fetching them.
func groupZombieSchedule(s *Scripted) faults.Schedule {
	return schedule("group-zombie", `
from 12s to 42s partition %d | coordinator-of g
`, int(s.MembersOf("g")[0]))
}

// offsetCommitLostSchedule is KIP-101's first scenario on group g's
// __consumer_offsets partition, just after an acknowledged commit:
// follower C holds the commit but its high watermark lags (it rides on the
// next fetch response); C is cut from the brokers and leader A crashes, so
// once A is fenced B leads and C, becoming B's follower, truncates to its
// high watermark if the configuration says so; B crashes before C can
// fetch again, and C, still in the ISR, is elected and loads the group
// without the commit.
//
// The window between a commit and its high watermark reaching C is a few
// milliseconds, and when commits happen depends on how the group formed:
// rather than a time found by trial, which any change of timing elsewhere
// moves, the schedule is written after running the fixture to a commit
// the coordinator applied after 15 s (its high watermark has just passed
// it), and its faults start at that instant, while the answers carrying
// the new high watermark are still in flight. C is the
// last follower in the assignment, so that the controller elects B, not C,
// when A crashes, and the commit must be one that C holds without knowing
// it is committed: the high watermark moved when the faster follower
// fetched past it, and C may have had it by then. So the fixture runs on
// to the first such commit (cutting off a C that already knew showed
// nothing on one seed in fourteen). A twin of the fixture
// (Scripted.probe) is the one run on; the run is deterministic, so the
// fixture meets the same moment, and the schedule replays unchanged.
func offsetCommitLostSchedule(s *Scripted) faults.Schedule {
	tp := model.TP(broker.OffsetsTopic, broker.PartitionFor("g", s.Config.Group.OffsetsTopicPartitions))
	seen := -1 // commits observed up to the last look
	p := s.probeUntil(15*time.Second, 25*time.Second, func(p *Scripted) bool {
		obs := p.Observed.Committed
		if seen < 0 { // the first look, at 15 s: nothing is new yet
			seen = len(obs)
			return false
		}
		fresh := obs[seen:]
		seen = len(obs)
		return slices.ContainsFunc(fresh, func(o model.CommittedObservation) bool { return o.Group == "g" }) && unaware(p, tp)
	})
	at := p.Sim.Now()
	a, f := p.LeaderAndFollowers(tp)
	return schedule("offset-commit-lost", `
from %v to 50s partition isolate %v from brokers
from %v to 50s crash %v
from %v to 50s crash %v
`, at, f[len(f)-1], at+100*time.Millisecond, a, at+14*time.Second, f[0])
}

// unaware reports whether tp's last follower holds everything its leader
// has committed while its own high watermark lags behind the leader's.
func unaware(s *Scripted, tp model.TopicPartition) bool {
	a, f := s.LeaderAndFollowers(tp)
	if len(f) == 0 {
		return false
	}
	var lead, last *fixture.Replica
	reps := s.Replicas(tp)
	for i := range reps {
		switch reps[i].Broker {
		case a:
			lead = &reps[i]
		case f[len(f)-1]:
			last = &reps[i]
		}
	}
	return lead != nil && last != nil && last.LEO >= lead.HW && last.HW < lead.HW
}
