package scenarios

import (
	"time"

	"kafkasim/model"
	"kafkasim/sim"
)

// Historical is a scripted replay of a data-loss bug from Kafka's history:
// the configuration that had it, the same configuration with the fix, and
// the sequence of faults that triggers it. Played under Buggy it must break
// an invariant; under Fixed it must not.
type Historical struct {
	Name    string
	Summary string
	Seed    uint64
	Brokers int
	Buggy   func() model.Config
	Fixed   func() model.Config
	// Play schedules the faults on a ready fixture; the run lasts until
	// End.
	Play func(s *Scripted)
	End  time.Duration
}

// Run plays h under the given configuration and returns the finished run.
func (h Historical) Run(kc model.Config) (*Scripted, error) {
	s, err := NewScripted(ScriptOptions{Seed: h.Seed, Config: kc, Brokers: h.Brokers})
	if err != nil {
		return nil, err
	}
	h.Play(s)
	s.Sim.Run(h.End)
	return s, nil
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

// Catalog of the historical bugs (see KAFKA.md, "Historical bugs").
var HistoricalBugs = []Historical{
	{
		Name:    "kip101-hw-truncation",
		Summary: "a follower truncates to its lagging high watermark, then is elected: a committed record is lost",
		Seed:    7,
		Buggy: func() model.Config {
			kc := safe()
			kc.Broker.Truncation = model.TruncateHighWatermark
			kc.Controller.EligibleLeaderReplicas = false
			return kc
		},
		Fixed: func() model.Config {
			kc := safe()
			kc.Controller.EligibleLeaderReplicas = false
			return kc
		},
		Play: playKIP101,
		End:  60 * time.Second,
	},
	{
		Name:    "jepsen-2013",
		Summary: "the ISR shrinks to the leader alone, it acknowledges writes and dies; unclean election picks a stale replica",
		Seed:    3,
		Buggy: func() model.Config {
			kc := safe()
			kc.Topic.MinInsyncReplicas = 1
			kc.Topic.UncleanLeaderElection = true
			kc.Controller.EligibleLeaderReplicas = false
			return kc
		},
		Fixed: func() model.Config {
			kc := safe()
			kc.Topic.MinInsyncReplicas = 1
			kc.Controller.EligibleLeaderReplicas = false
			return kc
		},
		Play: playJepsen2013,
		End:  120 * time.Second,
	},
	{
		Name:    "acks1-failover",
		Summary: "with acks=1 the leader acknowledges alone and dies before the followers fetch",
		Seed:    5,
		Buggy: func() model.Config {
			kc := safe()
			kc.Producer.Acks = model.AcksLeader
			kc.Producer.Idempotence = false
			kc.Controller.EligibleLeaderReplicas = false
			return kc
		},
		Fixed: func() model.Config {
			kc := safe()
			kc.Controller.EligibleLeaderReplicas = false
			return kc
		},
		Play: playAcks1,
		End:  60 * time.Second,
	},
	{
		Name:    "kip279-divergence",
		Summary: "leaders alternate across crashes (rf 2, unclean election); an end offset without its epoch truncates too little",
		Seed:    11,
		Brokers: 2,
		Buggy:   func() model.Config { return kip279Config(model.TruncateLeaderEpochKIP101) },
		Fixed:   func() model.Config { return kip279Config(model.TruncateLeaderEpoch) },
		Play:    playKIP279,
		End:     70 * time.Second,
	},
	{
		Name:    "kip966-last-replica",
		Summary: "the ISR shrinks to one broker, which loses its unflushed tail in a power loss and is re-elected",
		Seed:    13,
		Buggy: func() model.Config {
			kc := safe()
			kc.Controller.EligibleLeaderReplicas = false
			kc.Broker.ReplicaLagTimeMax = 10 * time.Second
			return kc
		},
		Fixed: func() model.Config {
			kc := safe()
			kc.Broker.ReplicaLagTimeMax = 10 * time.Second
			return kc
		},
		Play: playKIP966,
		End:  90 * time.Second,
	},
}

// playKIP101: follower C holds the last acknowledged record but its high
// watermark lags (the update rides on the next fetch response). C is cut
// off from the brokers (not the controller) before that response, and
// leader A crashes: the controller elects B, and C, becoming B's follower,
// truncates to its high watermark if the configuration says so. B crashes
// before C can re-fetch: C, still in the ISR, is elected.
func playKIP101(s *Scripted) {
	tp := s.TPs[0]
	a, f := s.LeaderAndFollowers(tp)
	b, c := f[0], f[1]
	s.At(2*time.Second, "stop producing", s.Work.Stop)
	s.At(2100*time.Millisecond, "isolate C", func() { s.Isolate(c) })
	s.At(2200*time.Millisecond, "crash A", func() { s.Sim.Crash(sim.NodeID(a)) })
	s.At(14*time.Second, "crash B", func() { s.Sim.Crash(sim.NodeID(b)) })
	s.At(30*time.Second, "heal, restart A and B", func() {
		s.Sim.HealAll()
		s.Sim.Restart(sim.NodeID(a))
		s.Sim.Restart(sim.NodeID(b))
	})
}

// playJepsen2013: the leader is cut off from its followers; the ISR shrinks
// to it alone at the first isr-expiration check after
// replica.lag.time.max.ms (by 50 s), it acknowledges writes, and crashes.
func playJepsen2013(s *Scripted) {
	a, _ := s.LeaderAndFollowers(s.TPs[0])
	s.At(2*time.Second, "isolate leader", func() { s.Isolate(a) })
	s.At(55*time.Second, "crash leader", func() { s.Sim.Crash(sim.NodeID(a)) })
	s.At(75*time.Second, "heal", s.Sim.HealAll)
	s.At(85*time.Second, "restart", func() { s.Sim.Restart(sim.NodeID(a)) })
	s.At(95*time.Second, "stop producing", s.Work.Stop)
}

// playAcks1: the followers are cut off, the leader acknowledges writes on
// its own append, then crashes before they could fetch them.
func playAcks1(s *Scripted) {
	a, _ := s.LeaderAndFollowers(s.TPs[0])
	s.At(2*time.Second, "isolate leader", func() { s.Isolate(a) })
	s.At(3*time.Second, "crash leader", func() { s.Sim.Crash(sim.NodeID(a)) })
	s.At(20*time.Second, "heal and restart", func() { s.Sim.HealAll(); s.Sim.Restart(sim.NodeID(a)) })
	s.At(30*time.Second, "stop producing", s.Work.Stop)
}

func kip279Config(mode model.TruncationMode) model.Config {
	kc := safe()
	kc.Broker.DefaultReplicationFactor = 2
	kc.Topic.MinInsyncReplicas = 1
	kc.Topic.UncleanLeaderElection = true
	kc.Controller.EligibleLeaderReplicas = false
	kc.Producer.Acks = model.AcksLeader
	kc.Producer.Idempotence = false
	kc.Broker.Truncation = mode
	return kc
}

// playKIP279: A leads; cut off, it writes alone and crashes; B (still in
// the ISR) is elected and writes at the same offsets under a new epoch,
// then crashes; A restarts and is elected uncleanly, writing under a third
// epoch; B restarts as A's follower and must find where they diverge.
func playKIP279(s *Scripted) {
	a, f := s.LeaderAndFollowers(s.TPs[0])
	b := f[0]
	s.At(2*time.Second, "cut A from B", func() { s.Isolate(a) })
	s.At(3*time.Second, "crash A", func() { s.Sim.Crash(sim.NodeID(a)) })
	s.At(20*time.Second, "crash B", func() { s.Sim.Crash(sim.NodeID(b)) })
	s.At(32*time.Second, "restart A", func() { s.Sim.Restart(sim.NodeID(a)) })
	s.At(40*time.Second, "heal, restart B", func() { s.Sim.HealAll(); s.Sim.Restart(sim.NodeID(b)) })
	s.At(50*time.Second, "stop producing", s.Work.Stop)
}

// playKIP966: writes commit with the full ISR; the followers are cut off so
// that the ISR shrinks to the leader alone (replica.lag.time.max.ms is
// 10 s so that this comes first); the leader loses power while those
// writes are still in its page cache (younger than the 30 s writeback).
func playKIP966(s *Scripted) {
	a, _ := s.LeaderAndFollowers(s.TPs[0])
	s.At(5*time.Second, "isolate leader", func() { s.Isolate(a) })
	s.At(25*time.Second, "power loss", func() { s.Sim.PowerLoss(sim.NodeID(a)) })
	s.At(26*time.Second, "restart", func() { s.Sim.Restart(sim.NodeID(a)) })
	s.At(45*time.Second, "heal", s.Sim.HealAll)
	s.At(60*time.Second, "stop producing", s.Work.Stop)
}
