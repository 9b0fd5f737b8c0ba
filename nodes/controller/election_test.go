package controller

import (
	"slices"
	"testing"

	"kafkasim/model"
)

const none = model.NoBroker

// part is partition t/0 on replicas [1 2 3] at leader epoch 5, partition
// epoch 10.
func part(leader model.BrokerID, isr, elr []model.BrokerID, lastKnown model.BrokerID) *partitionInfo {
	return &partitionInfo{
		PartitionState: model.PartitionState{
			TP: model.TP("t", 0), Leader: leader, LeaderEpoch: 5, PartitionEpoch: 10,
			Replicas: ids(1, 2, 3), ISR: isr, ELR: elr,
		},
		LastKnownLeader: lastKnown,
	}
}

// alive accepts exactly the listed brokers as leaders.
func alive(live ...model.BrokerID) func(model.BrokerID) bool {
	return func(r model.BrokerID) bool { return slices.Contains(live, r) }
}

// spec is a change spec with ELR on, min ISR 2, unclean off.
func spec(target []model.BrokerID, acceptable func(model.BrokerID) bool) changeSpec {
	return changeSpec{targetISR: target, acceptable: acceptable, minISR: 2, elr: true, uncleanShutdown: none}
}

// want is the expected outcome of buildChange.
type want struct {
	leader      model.BrokerID
	leaderEpoch model.Epoch
	isr, elr    []model.BrokerID
	lastKnown   model.BrokerID
}

func checkChange(t *testing.T, p *partitionInfo, s changeSpec, w want) {
	t.Helper()
	r, ok := buildChange(p, s)
	if !ok {
		t.Fatalf("no change, want %+v", w)
	}
	if r.Leader != w.leader || r.LeaderEpoch != w.leaderEpoch || !slices.Equal(r.ISR, w.isr) ||
		!slices.Equal(r.ELR, w.elr) || r.LastKnownLeader != w.lastKnown {
		t.Fatalf("got %v\nwant leader=%v epoch=%d isr=%v elr=%v lastKnownLeader=%v",
			r, w.leader, w.leaderEpoch, w.isr, w.elr, w.lastKnown)
	}
	if r.PartitionEpoch != p.PartitionEpoch+1 {
		t.Fatalf("partition epoch %d, want %d: every change bumps it", r.PartitionEpoch, p.PartitionEpoch+1)
	}
}

func checkNoChange(t *testing.T, p *partitionInfo, s changeSpec) {
	t.Helper()
	if r, ok := buildChange(p, s); ok {
		t.Fatalf("got change %v, want none", r)
	}
}

func TestElectionKeepsValidLeader(t *testing.T) {
	// Leader 2 stays although replica 1 comes first in the assignment: a
	// valid leader is never replaced, and the leader epoch does not move.
	p := part(2, ids(1, 2, 3), nil, none)
	checkChange(t, p, spec(ids(2, 3), alive(1, 2, 3)), want{leader: 2, leaderEpoch: 5, isr: ids(2, 3), lastKnown: none})
}

func TestElectionFirstAliveISRMemberInAssignmentOrder(t *testing.T) {
	// The ISR lists 3 before 2, but the assignment order [1 2 3] decides.
	p := part(1, ids(3, 2, 1), nil, none)
	checkChange(t, p, spec(ids(3, 2), alive(2, 3)), want{leader: 2, leaderEpoch: 6, isr: ids(3, 2), lastKnown: none})
	// A dead ISR member is skipped.
	checkChange(t, p, spec(ids(3, 2), alive(3)), want{leader: 3, leaderEpoch: 6, isr: ids(3, 2), lastKnown: none})
	// An alive replica outside the ISR is not a clean choice.
	p = part(1, ids(1, 2), nil, none)
	s := spec(ids(2), alive(3))
	s.elr = false
	checkChange(t, p, s, want{leader: none, leaderEpoch: 6, isr: ids(2), lastKnown: none})
}

func TestElectionFromELRWhenISREmpty(t *testing.T) {
	// ISR empty, ELR [2 3], 2 dead: 3 leads, leaves the ELR and is the ISR.
	p := part(none, nil, ids(2, 3), 1)
	checkChange(t, p, spec(nil, alive(3)), want{leader: 3, leaderEpoch: 6, isr: ids(3), elr: ids(2), lastKnown: none})
	// With an ISR member around, the ELR is not used even if alive.
	p = part(1, ids(1), ids(2), none)
	checkChange(t, p, spec(ids(1), alive(2)), want{leader: none, leaderEpoch: 6, isr: ids(1), elr: ids(2), lastKnown: none})
}

func TestElectionLastKnownLeader(t *testing.T) {
	// ISR and ELR empty (everyone else restarted uncleanly): the last known
	// leader leads if it is alive, unclean (the ISR is itself alone).
	p := part(none, nil, nil, 2)
	checkChange(t, p, spec(nil, alive(2, 3)), want{leader: 2, leaderEpoch: 6, isr: ids(2), lastKnown: none})
	// Not while it is fenced, even though 3 is alive: no leader, no change.
	checkNoChange(t, p, spec(nil, alive(1, 3)))
	// Not while the ELR holds anyone, even a dead one.
	p = part(none, nil, ids(3), 2)
	checkNoChange(t, p, spec(nil, alive(2)))
	// Not with ELR off.
	p = part(none, nil, nil, 2)
	s := spec(nil, alive(2))
	s.elr = false
	checkNoChange(t, p, s)
}

func TestElectionUnclean(t *testing.T) {
	// ELR off, the ISR's last member 1 is dead, 3 is alive but out of sync.
	p := part(none, ids(1), nil, none)
	s := spec(ids(1), alive(3))
	s.elr = false
	checkNoChange(t, p, s) // unclean off: wait for 1
	s.unclean = true
	checkChange(t, p, s, want{leader: 3, leaderEpoch: 6, isr: ids(3), lastKnown: none})

	// With ELR on, an unclean election also empties the ELR: its members
	// may hold records the new leader's log will never have.
	p = part(none, nil, ids(2), none)
	s = spec(nil, alive(3))
	s.unclean = true
	checkChange(t, p, s, want{leader: 3, leaderEpoch: 6, isr: ids(3), lastKnown: none})
}

func TestElectionNoLeaderKeepsLastISRMemberWithoutELR(t *testing.T) {
	// Fencing the leader and last ISR member with ELR off: no leader, and
	// the ISR keeps 1, the only replica known to hold every committed
	// record, so it can lead again when it returns.
	p := part(1, ids(1), nil, none)
	s := spec(nil, alive(2, 3))
	s.elr = false
	checkChange(t, p, s, want{leader: none, leaderEpoch: 6, isr: ids(1), lastKnown: none})
}

func TestElectionNoLeaderEmptiesISRIntoELR(t *testing.T) {
	// The same with ELR on: the ISR empties into the ELR and 1 becomes the
	// last known leader.
	p := part(1, ids(1), nil, none)
	checkChange(t, p, spec(nil, alive(2, 3)), want{leader: none, leaderEpoch: 6, isr: nil, elr: ids(1), lastKnown: 1})
}

func TestELREnterAndLeave(t *testing.T) {
	// Shrinking to the minimum (2) leaves the ELR empty.
	p := part(1, ids(1, 2, 3), nil, none)
	checkChange(t, p, spec(ids(1, 2), alive(1, 2, 3)), want{leader: 1, leaderEpoch: 5, isr: ids(1, 2), lastKnown: none})
	// Below it, everyone who leaves the ISR enters the ELR, sorted.
	checkChange(t, p, spec(ids(1), alive(1, 2, 3)), want{leader: 1, leaderEpoch: 5, isr: ids(1), elr: ids(2, 3), lastKnown: none})
	// The ELR keeps its members while the ISR stays below the minimum.
	p = part(1, ids(1, 2), ids(3), none)
	checkChange(t, p, spec(ids(1), alive(1, 2, 3)), want{leader: 1, leaderEpoch: 5, isr: ids(1), elr: ids(2, 3), lastKnown: none})
	// Back at the minimum, the ELR is cleared.
	p = part(1, ids(1), ids(2, 3), none)
	checkChange(t, p, spec(ids(1, 3), alive(1, 2, 3)), want{leader: 1, leaderEpoch: 5, isr: ids(1, 3), lastKnown: none})
	// With ELR off nothing ever enters it.
	p = part(1, ids(1, 2, 3), nil, none)
	s := spec(ids(1), alive(1, 2, 3))
	s.elr = false
	checkChange(t, p, s, want{leader: 1, leaderEpoch: 5, isr: ids(1), lastKnown: none})
}

func TestELRExcludesUncleanShutdown(t *testing.T) {
	// 2 restarted uncleanly and leaves the ISR: it does not enter the ELR.
	p := part(1, ids(1, 2), nil, none)
	s := spec(ids(1), alive(1, 3))
	s.uncleanShutdown = 2
	checkChange(t, p, s, want{leader: 1, leaderEpoch: 5, isr: ids(1), lastKnown: none})
	// 3 in the ELR restarted uncleanly: it leaves the ELR, no epoch bump
	// beyond the partition epoch (KIP-966: an ELR change alone needs no new
	// leader epoch).
	p = part(1, ids(1), ids(2, 3), none)
	s = spec(ids(1), alive(1, 2))
	s.uncleanShutdown = 3
	checkChange(t, p, s, want{leader: 1, leaderEpoch: 5, isr: ids(1), elr: ids(2), lastKnown: none})
}

func TestElectionNoChangeNoRecord(t *testing.T) {
	p := part(1, ids(1, 2, 3), nil, none)
	checkNoChange(t, p, spec(ids(1, 2, 3), alive(1, 2, 3)))
}

func TestLastKnownLeaderClearedWhenLeaderReturns(t *testing.T) {
	// ISR [] ELR [2]: 2 returns and leads, and the last known leader is
	// forgotten.
	p := part(none, nil, ids(2), 1)
	checkChange(t, p, spec(nil, alive(2)), want{leader: 2, leaderEpoch: 6, isr: ids(2), lastKnown: none})
}

// testState builds a metadata state with brokers 1..3 registered and
// unfenced and topic t (one partition on [1 2 3], ISR [1 2 3], leader 1),
// by applying records, as the controller would.
func testState(t *testing.T, cfg model.Config) *metadataState {
	t.Helper()
	s := newMetadataState(cfg)
	var off int64
	next := func(r Record) { off++; s.apply(off, r) }
	next(LeaderChangeRecord{ControllerEpoch: 1, ControllerID: ctrlID})
	for id := model.BrokerID(1); id <= 3; id++ {
		next(RegisterBrokerRecord{ID: id, Epoch: model.Epoch(off + 1), Incarnation: uint64(id)})
		next(UnfenceBrokerRecord{ID: id, Epoch: model.Epoch(off)})
	}
	next(CreateTopicRecord{Name: "t", Partitions: []model.PartitionState{{
		TP: model.TP("t", 0), Leader: 1, Replicas: ids(1, 2, 3), ISR: ids(1, 2, 3),
	}}})
	return s
}

// applyAll applies records after the state's last offset.
func applyAll(s *metadataState, rs []Record) {
	for _, r := range rs {
		s.apply(s.offset+1, r)
	}
}

func TestUncleanRestartLeavesISRAndELR(t *testing.T) {
	cfg := testConfig()
	cfg.Topic.MinInsyncReplicas = 2
	s := testState(t, cfg)
	tp := model.TP("t", 0)
	// The ISR shrank to [1 2] while 3 was away: nothing in the ELR (at the
	// minimum). Then 2 is fenced: [1], ELR [2].
	applyAll(s, s.leaderAndISRUpdates(3, none, none, inISR(3)))
	applyAll(s, s.leaderAndISRUpdates(2, none, none, inISR(2)))
	if p := s.partition(tp); !slices.Equal(p.ISR, ids(1)) || !slices.Equal(p.ELR, ids(2)) {
		t.Fatalf("after fencing 3 and 2: %v, want isr=[b1] elr=[b2]", p.PartitionState)
	}
	// 2 registers after an unclean shutdown: it leaves the ELR.
	applyAll(s, s.leaderAndISRUpdates(none, none, 2, func(p *partitionInfo) bool {
		return slices.Contains(p.ISR, 2) || slices.Contains(p.ELR, 2)
	}))
	if p := s.partition(tp); !slices.Equal(p.ISR, ids(1)) || len(p.ELR) != 0 || p.Leader != 1 {
		t.Fatalf("after 2's unclean restart: %v, want leader=b1 isr=[b1] elr=[]", p.PartitionState)
	}
	// 1, the leader, registers after an unclean shutdown: it leaves the
	// ISR, does not enter the ELR and does not lead, and is not kept as the
	// only ISR member either.
	applyAll(s, s.leaderAndISRUpdates(none, none, 1, inISR(1)))
	p := s.partition(tp)
	if p.Leader != none || len(p.ISR) != 0 || len(p.ELR) != 0 {
		t.Fatalf("after 1's unclean restart: %v, want no leader, isr=[] elr=[]", p.PartitionState)
	}
}

func TestCleanRegistrationKeepsELR(t *testing.T) {
	// The other way: a broker in the ELR that re-registers after a clean
	// shutdown is treated like a fenced one and stays in the ELR.
	cfg := testConfig()
	cfg.Topic.MinInsyncReplicas = 2
	s := testState(t, cfg)
	applyAll(s, s.leaderAndISRUpdates(3, none, none, inISR(3)))
	applyAll(s, s.leaderAndISRUpdates(2, none, none, inISR(2)))
	applyAll(s, s.leaderAndISRUpdates(2, none, none, inISR(2)))
	if p := s.partition(model.TP("t", 0)); !slices.Equal(p.ELR, ids(2)) {
		t.Fatalf("%v, want elr=[b2]", p.PartitionState)
	}
}

func TestUncleanRestartKeepsLastKnownLeader(t *testing.T) {
	// Kafka keeps a broker that restarts uncleanly as the partition's last
	// known leader: handleBrokerUncleanShutdown takes it out of the ISR
	// and ELR only, and canElectLastKnownLeader asks nothing about how it
	// restarted, only that ISR and ELR are empty and that it may lead
	// (QuorumControllerTest.testUncleanShutdownBrokerElrEnabled asserts
	// that lastKnownElr is unchanged by the unclean registration). So it
	// leads again, unclean, once it is unfenced, whatever its log kept.
	for _, clean := range []bool{false, true} {
		name := map[bool]string{false: "unclean", true: "clean"}[clean]
		t.Run(name, func(t *testing.T) {
			cfg := testConfig()
			cfg.Topic.MinInsyncReplicas = 2
			s := testState(t, cfg)
			tp := model.TP("t", 0)
			fence := func(id model.BrokerID) {
				applyAll(s, s.leaderAndISRUpdates(id, none, none, inISR(id)))
				applyAll(s, []Record{FenceBrokerRecord{ID: id, Epoch: s.brokers[id].Epoch}})
			}
			// 3 and 2 are fenced, 2 comes back uncleanly and leaves the
			// ELR; then 1, the leader and the ISR's last member, is
			// fenced: ISR [] ELR [1], 1 the last known leader.
			fence(3)
			fence(2)
			applyAll(s, s.leaderAndISRUpdates(none, none, 2, func(p *partitionInfo) bool {
				return slices.Contains(p.ISR, 2) || slices.Contains(p.ELR, 2)
			}))
			fence(1)
			if p := s.partition(tp); p.Leader != none || len(p.ISR) != 0 || !slices.Equal(p.ELR, ids(1)) || p.LastKnownLeader != 1 {
				t.Fatalf("after fencing 1: %v lastKnownLeader=%v, want no leader, isr=[] elr=[b1], last known leader b1", p.PartitionState, p.LastKnownLeader)
			}
			epoch := s.partition(tp).LeaderEpoch
			// 1 registers again.
			if clean {
				applyAll(s, s.leaderAndISRUpdates(1, none, none, inISR(1)))
			} else {
				applyAll(s, s.leaderAndISRUpdates(none, none, 1, func(p *partitionInfo) bool {
					return slices.Contains(p.ISR, 1) || slices.Contains(p.ELR, 1)
				}))
			}
			wantELR := map[bool][]model.BrokerID{false: nil, true: ids(1)}[clean]
			if p := s.partition(tp); p.Leader != none || len(p.ISR) != 0 || !slices.Equal(p.ELR, wantELR) || p.LastKnownLeader != 1 {
				t.Fatalf("after 1's %s registration: %v lastKnownLeader=%v, want no leader, isr=[] elr=%v, last known leader still b1",
					name, p.PartitionState, p.LastKnownLeader, wantELR)
			}
			// 2 is unfenced: it is in neither ISR nor ELR, and 1, still
			// fenced, may not lead: nothing changes.
			if rs := s.leaderAndISRUpdates(none, 2, none, leaderless); len(rs) != 0 {
				t.Fatalf("unfencing 2: %v, want no change while the last known leader is fenced", rs)
			}
			// 1 is unfenced: it leads with the ISR itself alone, from the
			// ELR after a clean restart, as the last known leader after an
			// unclean one.
			applyAll(s, s.leaderAndISRUpdates(none, 1, none, leaderless))
			if p := s.partition(tp); p.Leader != 1 || !slices.Equal(p.ISR, ids(1)) || len(p.ELR) != 0 || p.LastKnownLeader != none || p.LeaderEpoch != epoch+1 {
				t.Fatalf("after unfencing 1: %v lastKnownLeader=%v, want leader b1 at epoch %d, isr=[b1] elr=[], no last known leader",
					p.PartitionState, p.LastKnownLeader, epoch+1)
			}
			// Only the election from outside the ISR and ELR is unclean
			// (Kafka's leaderRecoveryState RECOVERING): the harness then
			// stops promising the partition's acknowledged writes.
			if got, want := s.partition(tp).UncleanElections, map[bool]int{false: 1, true: 0}[clean]; got != want {
				t.Fatalf("unclean elections %d, want %d", got, want)
			}
		})
	}
}
