package controller

import (
	"slices"
	"testing"

	"kafkasim/model"
)

// The cases of Kafka's PartitionChangeBuilderTest, run through buildChange
// with Kafka's inputs: partitions at leader epoch 100 and partition epoch
// 200, the test's acceptable-leader predicate, min ISR and ELR setting.
// Kafka's builder takes an Election (PREFERRED, ANY or UNCLEAN); these
// cases run kafkasim's as ANY, or as UNCLEAN when the topic allows unclean
// election (PREFERRED, which ElectLeaders and the automatic leader balance
// use, is tested in reassignment_test.go and rebalance_test.go).
// Kafka's record leaves out the fields that do not change; buildChange's
// has every field, so "not set" reads here as "the same as before".
// Kafka's leaderRecoveryState RECOVERING on an election is kafkasim's
// Unclean mark on the record.

// kpart is a partition as Kafka's tests build one: topic foo, partition 0,
// leader epoch 100, partition epoch 200.
func kpart(replicas []model.BrokerID, leader model.BrokerID, isr, elr []model.BrokerID, lastKnown model.BrokerID) *partitionInfo {
	return &partitionInfo{
		PartitionState: model.PartitionState{
			TP: model.TP("foo", 0), Leader: leader, LeaderEpoch: 100, PartitionEpoch: 200,
			Replicas: replicas, ISR: isr, ELR: elr,
		},
		LastKnownLeader: lastKnown,
	}
}

// foo is Kafka's FOO: replicas [2 1 3], ISR [2 1 3], leader 1.
func foo() *partitionInfo { return kpart(ids(2, 1, 3), 1, ids(2, 1, 3), nil, none) }

// bazPart is Kafka's BAZ: replicas [2 1 3], ISR [1 3], leader 3.
func bazPart() *partitionInfo { return kpart(ids(2, 1, 3), 3, ids(1, 3), nil, none) }

// offline is Kafka's OFFLINE_WITH_ELR (ELR on) or OFFLINE_WITHOUT_ELR:
// replicas [2 1 3], no leader; with ELR, ISR [], ELR [3] and last known
// leader 2; without, ISR [3].
func offline(elr bool) *partitionInfo {
	if elr {
		return kpart(ids(2, 1, 3), none, nil, ids(3), 2)
	}
	return kpart(ids(2, 1, 3), none, ids(3), nil, none)
}

// kspec is the builder's settings: target ISR, acceptable leaders, min
// ISR, ELR on or off; unclean election off.
func kspec(target []model.BrokerID, acceptable func(model.BrokerID) bool, minISR int, elr bool) changeSpec {
	return changeSpec{targetISR: target, acceptable: acceptable, minISR: minISR, elr: elr, uncleanShutdown: none}
}

func notBroker(x model.BrokerID) func(model.BrokerID) bool {
	return func(r model.BrokerID) bool { return r != x }
}

func anyBroker(model.BrokerID) bool { return true }

func noBroker(model.BrokerID) bool { return false }

// fooSpec is createFooBuilder: FOO's ISR as the target, every broker but
// 3 acceptable, min ISR 2.
func fooSpec(elr bool) changeSpec { return kspec(ids(2, 1, 3), notBroker(3), 2, elr) }

// changed is the partition's state after a record.
type changed struct {
	leader      model.BrokerID
	leaderEpoch model.Epoch
	isr, elr    []model.BrokerID
	lastKnown   model.BrokerID
	unclean     bool // Kafka's leaderRecoveryState set to RECOVERING
}

func expectChange(t *testing.T, p *partitionInfo, s changeSpec, w changed) PartitionChangeRecord {
	t.Helper()
	r, ok := buildChange(p, s)
	if !ok {
		t.Fatalf("no change, want %+v", w)
	}
	if r.Leader != w.leader || r.LeaderEpoch != w.leaderEpoch || !slices.Equal(r.ISR, w.isr) ||
		!slices.Equal(r.ELR, w.elr) || r.LastKnownLeader != w.lastKnown || r.Unclean != w.unclean {
		t.Fatalf("got %v unclean=%v\nwant leader=%v leaderEpoch=%d isr=%v elr=%v lastKnownLeader=%v unclean=%v",
			r, r.Unclean, w.leader, w.leaderEpoch, w.isr, w.elr, w.lastKnown, w.unclean)
	}
	if r.PartitionEpoch != p.PartitionEpoch+1 {
		t.Fatalf("partition epoch %d, want %d", r.PartitionEpoch, p.PartitionEpoch+1)
	}
	return r
}

func expectNoChange(t *testing.T, p *partitionInfo, s changeSpec) {
	t.Helper()
	if r, ok := buildChange(p, s); ok {
		t.Fatalf("got %v, want no change (Kafka: build() returns Optional.empty())", r)
	}
}

// merged is p after r, as PartitionRegistration.merge gives it.
func merged(p *partitionInfo, r PartitionChangeRecord) *partitionInfo {
	q := *p
	q.Leader, q.LeaderEpoch, q.PartitionEpoch = r.Leader, r.LeaderEpoch, r.PartitionEpoch
	q.ISR, q.ELR, q.LastKnownLeader = r.ISR, r.ELR, r.LastKnownLeader
	return &q
}

// elrVersions runs f with ELR off and on: Kafka's PartitionChangeRecord
// versions 0 and 1 (metadata versions before ELR) and 2.
func elrVersions(t *testing.T, f func(t *testing.T, elr bool)) {
	for _, elr := range []bool{false, true} {
		name := "elr-off"
		if elr {
			name = "elr-on"
		}
		t.Run(name, func(t *testing.T) { f(t, elr) })
	}
}

// Kafka: PartitionChangeBuilderTest.testNoLeaderEpochBumpIfNothingChanged
func TestNoLeaderEpochBumpIfNothingChanged(t *testing.T) {
	// Nothing asked of FOO: no record at all, so no leader epoch bump.
	elrVersions(t, func(t *testing.T, elr bool) { expectNoChange(t, foo(), fooSpec(elr)) })
}

// TestNoLeaderEpochBumpOnIsrShrink also stands for Kafka's
// testIsrChangeDoesntBumpLeaderEpoch, which asks the same of FOO and checks
// the whole record. kafkasim follows metadata versions 3.6 and later, where
// a shrink keeps the leader epoch (KAFKA-15021 took the bump out).
//
// Kafka: PartitionChangeBuilderTest.testNoLeaderEpochBumpOnIsrShrink
// Kafka: PartitionChangeBuilderTest.testIsrChangeDoesntBumpLeaderEpoch
func TestNoLeaderEpochBumpOnIsrShrink(t *testing.T) {
	elrVersions(t, func(t *testing.T, elr bool) {
		s := fooSpec(elr)
		s.targetISR = ids(2, 1)
		expectChange(t, foo(), s, changed{leader: 1, leaderEpoch: 100, isr: ids(2, 1), lastKnown: none})
	})
}

// Kafka: PartitionChangeBuilderTest.testNoLeaderEpochBumpOnIsrExpansion
func TestNoLeaderEpochBumpOnIsrExpansion(t *testing.T) {
	// The builder does not check the target against the replicas: 4 joins
	// FOO's ISR, and the leader epoch stays.
	elrVersions(t, func(t *testing.T, elr bool) {
		s := fooSpec(elr)
		s.targetISR = ids(2, 1, 3, 4)
		expectChange(t, foo(), s, changed{leader: 1, leaderEpoch: 100, isr: ids(2, 1, 3, 4), lastKnown: none})
	})
}

// TestNoChange runs the builders of Kafka's testNoChange with nothing
// asked. BAR is taken without its reassignment (kafkasim has none): a
// partition on [1 2 3 4] with ISR [1 2 3] led by 1. BAZ is asked for a
// PREFERRED election in Kafka, whose answer (the preferred replica 2 is out
// of the ISR, so the valid leader 3 stays) is also kafkasim's only
// election's.
//
// Kafka: PartitionChangeBuilderTest.testNoChange
func TestNoChange(t *testing.T) {
	elrVersions(t, func(t *testing.T, elr bool) {
		for _, unclean := range []bool{false, true} {
			s := fooSpec(elr)
			s.unclean = unclean
			expectNoChange(t, foo(), s)
			bar := kpart(ids(1, 2, 3, 4), 1, ids(1, 2, 3), nil, none)
			s = kspec(ids(1, 2, 3), notBroker(3), 2, elr)
			s.unclean = unclean
			expectNoChange(t, bar, s)
		}
		expectNoChange(t, bazPart(), kspec(ids(1, 3), anyBroker, 2, elr))
	})
}

// Kafka: PartitionChangeBuilderTest.testIsrChangeAndLeaderChange
func TestIsrChangeAndLeaderChange(t *testing.T) {
	// The leader 1 leaves the ISR: the first acceptable ISR member in
	// replica order ([2 1 3]) leads, with a new leader epoch.
	elrVersions(t, func(t *testing.T, elr bool) {
		s := fooSpec(elr)
		s.targetISR = ids(2, 3)
		expectChange(t, foo(), s, changed{leader: 2, leaderEpoch: 101, isr: ids(2, 3), lastKnown: none})
	})
}

// Kafka: PartitionChangeBuilderTest.testUncleanLeaderElection
func TestUncleanLeaderElection(t *testing.T) {
	elrVersions(t, func(t *testing.T, elr bool) {
		// FOO's ISR shrinks to 3, which may not lead: the first acceptable
		// replica, 2, leads uncleanly and is the ISR alone. With ELR on,
		// the replicas leaving the ISR would enter the ELR, but an unclean
		// election empties it.
		s := fooSpec(elr)
		s.targetISR, s.unclean = ids(3), true
		expectChange(t, foo(), s, changed{leader: 2, leaderEpoch: 101, isr: ids(2), lastKnown: none, unclean: true})

		// The offline partition, only 1 acceptable: 1 leads uncleanly,
		// with its ISR as it is and with a target ISR of [2]. With ELR on
		// the ELR [3] and the last known leader 2 are cleared.
		for _, target := range [][]model.BrokerID{offline(elr).ISR, ids(2)} {
			s := kspec(target, func(r model.BrokerID) bool { return r == 1 }, 2, elr)
			s.unclean = true
			expectChange(t, offline(elr), s, changed{leader: 1, leaderEpoch: 101, isr: ids(1), lastKnown: none, unclean: true})
		}
	})
}

// TestUncleanSetsLeaderRecoveringState takes the case Kafka runs with
// leader recovery supported (metadata version 3.2 and later, KIP-704),
// which is the only one kafkasim has; ELR is off, as the test's builder
// leaves it.
//
// Kafka: PartitionChangeBuilderTest.testUncleanSetsLeaderRecoveringState
func TestUncleanSetsLeaderRecoveringState(t *testing.T) {
	p := kpart(ids(1, 2, 3), none, ids(2, 3), nil, none)
	s := kspec(ids(2, 3), func(r model.BrokerID) bool { return r == 1 }, 2, false)
	s.unclean = true
	r := expectChange(t, p, s, changed{leader: 1, leaderEpoch: 101, isr: ids(1), lastKnown: none, unclean: true})
	if q := merged(p, r); q.Leader != 1 || !slices.Equal(q.ISR, ids(1)) {
		t.Fatalf("after the record: %+v", q.PartitionState)
	}
}

// The ELR cases. Kafka runs several of them with
// useLastKnownLeaderInBalancedRecovery off, where lastKnownElr holds the
// set of replicas last known to be in the ELR. kafkasim keeps only Kafka's
// default use of that field, the last known leader (one broker), so in
// those cases the ISR, ELR and leader are checked as Kafka's test checks
// them, and the last known leader as Kafka's default computes it; each
// case says where the two differ.

// Kafka: PartitionChangeBuilderTest.testEligibleLeaderReplicas_IsrShrinkBelowMinISR
func TestEligibleLeaderReplicas_IsrShrinkBelowMinISR(t *testing.T) {
	// ISR [1 2 3 4] shrinks to [1 2] under min ISR 3: 3 and 4 enter the
	// ELR (ELR on only). The last known ELR is empty either way.
	elrVersions(t, func(t *testing.T, elr bool) {
		p := kpart(ids(1, 2, 3, 4), 1, ids(1, 2, 3, 4), nil, none)
		var wantELR []model.BrokerID
		if elr {
			wantELR = ids(3, 4)
		}
		r := expectChange(t, p, kspec(ids(1, 2), notBroker(3), 3, elr),
			changed{leader: 1, leaderEpoch: 100, isr: ids(1, 2), elr: wantELR, lastKnown: none})
		if q := merged(p, r); !slices.Equal(q.ELR, wantELR) {
			t.Fatalf("ELR after the record %v, want %v", q.ELR, wantELR)
		}
	})
}

// TestEligibleLeaderReplicas_IsrExpandAboveMinISR: the ISR [1 2] grows to
// [1 2 3], the minimum: the ELR [3] and the last known ELR [4] are cleared.
// kafkasim reads [4] as the last known leader. With ELR on it is cleared
// too. With ELR off Kafka's default leaves the field alone, as kafkasim
// does; only with useLastKnownLeaderInBalancedRecovery off, as the test
// runs, does Kafka clear it with ELR off.
//
// Kafka: PartitionChangeBuilderTest.testEligibleLeaderReplicas_IsrExpandAboveMinISR
func TestEligibleLeaderReplicas_IsrExpandAboveMinISR(t *testing.T) {
	elrVersions(t, func(t *testing.T, elr bool) {
		p := kpart(ids(1, 2, 3, 4), 1, ids(1, 2), ids(3), 4)
		wantLastKnown := model.BrokerID(none)
		if !elr {
			wantLastKnown = 4
		}
		expectChange(t, p, kspec(ids(1, 2, 3), notBroker(3), 3, elr),
			changed{leader: 1, leaderEpoch: 100, isr: ids(1, 2, 3), elr: nil, lastKnown: wantLastKnown})
	})
}

// TestEligibleLeaderReplicas_IsrAddNewMemberNotInELR: ISR [1], ELR [3],
// min ISR 3; 4, not in the ELR, joins the ISR. The ELR stays [3] (ELR on)
// or is cleared (off), as Kafka's test says. Kafka's test also keeps its
// last known ELR [2]; kafkasim reads [2] as the last known leader, which
// Kafka's default clears once the partition has a leader and the ISR
// changes (maybeUpdateLastKnownLeader), with ELR on.
//
// Kafka: PartitionChangeBuilderTest.testEligibleLeaderReplicas_IsrAddNewMemberNotInELR
func TestEligibleLeaderReplicas_IsrAddNewMemberNotInELR(t *testing.T) {
	elrVersions(t, func(t *testing.T, elr bool) {
		p := kpart(ids(1, 2, 3, 4), 1, ids(1), ids(3), 2)
		w := changed{leader: 1, leaderEpoch: 100, isr: ids(1, 4), elr: ids(3), lastKnown: none}
		if !elr {
			w.elr, w.lastKnown = nil, 2
		}
		expectChange(t, p, kspec(ids(1, 4), notBroker(3), 3, elr), w)
	})
}

// TestEligibleLeaderReplicas_RemoveUncleanShutdownReplicasFromElr: ISR
// [1], ELR [2 3], min ISR 3; 3 registers after an unclean shutdown and
// leaves the ELR, which becomes [2] (ELR on) or empty (off); the leader
// does not change. Kafka's test, with useLastKnownLeaderInBalancedRecovery
// off, also records 3 in the last known ELR; under Kafka's default, as in
// kafkasim, the last known leader stays empty while 1 leads.
//
// Kafka: PartitionChangeBuilderTest.testEligibleLeaderReplicas_RemoveUncleanShutdownReplicasFromElr
func TestEligibleLeaderReplicas_RemoveUncleanShutdownReplicasFromElr(t *testing.T) {
	elrVersions(t, func(t *testing.T, elr bool) {
		p := kpart(ids(1, 2, 3, 4), 1, ids(1), ids(2, 3), none)
		s := kspec(ids(1), notBroker(3), 3, elr)
		s.uncleanShutdown = 3
		var wantELR []model.BrokerID
		if elr {
			wantELR = ids(2)
		}
		expectChange(t, p, s, changed{leader: 1, leaderEpoch: 100, isr: ids(1), elr: wantELR, lastKnown: none})
	})
}

// TestEligibleLeaderReplicas_ElrCanBeElected takes the case Kafka runs
// with the last known leader on (its default, and kafkasim's).
//
// Kafka: PartitionChangeBuilderTest.testEligibleLeaderReplicas_ElrCanBeElected
func TestEligibleLeaderReplicas_ElrCanBeElected(t *testing.T) {
	// ISR [1] led by 1, ELR [3], min ISR 3; 1 goes offline and the ISR
	// empties. 1 enters the ELR; 3, from the ELR, leads and is the ISR.
	p := kpart(ids(1, 2, 3, 4), 1, ids(1), ids(3), none)
	r := expectChange(t, p, kspec(nil, notBroker(1), 3, true),
		changed{leader: 3, leaderEpoch: 101, isr: ids(3), elr: ids(1), lastKnown: none})
	if q := merged(p, r); !slices.Equal(q.ELR, ids(1)) || !slices.Equal(q.ISR, ids(3)) || q.LastKnownLeader != none {
		t.Fatalf("after the record: %+v last known %v", q.PartitionState, q.LastKnownLeader)
	}
}

// TestEligibleLeaderReplicas_IsrCanShrinkToZero takes the case Kafka runs
// with the last known leader on.
//
// Kafka: PartitionChangeBuilderTest.testEligibleLeaderReplicas_IsrCanShrinkToZero
func TestEligibleLeaderReplicas_IsrCanShrinkToZero(t *testing.T) {
	// Every replica offline: the ISR [1 2 3 4] empties into the ELR, there
	// is no leader, and 1 is remembered as the last known leader.
	p := kpart(ids(1, 2, 3, 4), 1, ids(1, 2, 3, 4), nil, none)
	r := expectChange(t, p, kspec(nil, noBroker, 3, true),
		changed{leader: none, leaderEpoch: 101, isr: nil, elr: ids(1, 2, 3, 4), lastKnown: 1})
	// Then 2 registers after an unclean shutdown: it leaves the ELR, and
	// the last known leader is left as it was.
	q := merged(p, r)
	s := kspec(nil, noBroker, 3, true)
	s.uncleanShutdown = 2
	r = expectChange(t, q, s, changed{leader: none, leaderEpoch: 101, isr: nil, elr: ids(1, 3, 4), lastKnown: 1})
	if r.LastKnownLeader != q.LastKnownLeader {
		t.Fatalf("last known leader changed to %v", r.LastKnownLeader)
	}
}

// Kafka: PartitionChangeBuilderTest.testEligibleLeaderReplicas_ElectLastKnownLeader
func TestEligibleLeaderReplicas_ElectLastKnownLeader(t *testing.T) {
	// ISR and ELR empty, no leader, last known leader 1, every broker
	// acceptable: 1 leads, uncleanly (RECOVERING), and is forgotten as the
	// last known leader.
	p := kpart(ids(1, 2, 3, 4), none, nil, nil, 1)
	expectChange(t, p, kspec(nil, anyBroker, 3, true),
		changed{leader: 1, leaderEpoch: 101, isr: ids(1), elr: nil, lastKnown: none, unclean: true})
}

// Kafka: PartitionChangeBuilderTest.testEligibleLeaderReplicas_ElectLastKnownLeaderShouldFail
func TestEligibleLeaderReplicas_ElectLastKnownLeaderShouldFail(t *testing.T) {
	// The ELR still holds 3 (offline), so the last known leader 1 may not
	// lead: nothing changes.
	p := kpart(ids(1, 2, 3, 4), none, nil, ids(3), 1)
	expectNoChange(t, p, kspec(nil, notBroker(3), 3, true))
}

// Kafka: PartitionChangeBuilderTest.testElectLeader
//
// TestElectLeader is Kafka's testElectLeader (PartitionChangeBuilderTest),
// every assertion: FOO and BAZ under the online, PREFERRED and UNCLEAN
// elections, by target ISR, and an unclean election whose target replicas
// (a reassignment's) add broker 4, which is then elected cleanly from the
// target ISR. Kafka runs it for every PartitionChangeRecord version, with
// and without ELR; so does this.
func TestElectLeader(t *testing.T) {
	cases := []struct {
		p        *partitionInfo
		replicas []model.BrokerID // nil: the partition's own
		target   []model.BrokerID
		accept   func(model.BrokerID) bool
		election election
		leader   model.BrokerID
		dirty    bool
	}{
		{foo(), nil, ids(2, 1, 3), notBroker(3), electPreferred, 2, false},
		{foo(), nil, ids(2, 1, 3), notBroker(3), electOnline, 1, false},
		{foo(), nil, ids(2, 1, 3), notBroker(3), electUnclean, 1, false},
		{foo(), nil, ids(1, 3), notBroker(3), electOnline, 1, false},
		{foo(), nil, ids(1, 3), notBroker(3), electUnclean, 1, false},
		{foo(), nil, ids(3), notBroker(3), electOnline, none, false},
		{foo(), nil, ids(3), notBroker(3), electUnclean, 2, true},
		{foo(), ids(2, 1, 3, 4), ids(4), notBroker(3), electUnclean, 4, false},
		{bazPart(), nil, ids(1, 3), anyBroker, electPreferred, 3, false},
		{bazPart(), nil, ids(1, 3), anyBroker, electOnline, 3, false},
		{bazPart(), nil, ids(1, 3), anyBroker, electUnclean, 3, false},
	}
	for _, elr := range []bool{false, true} {
		for i, c := range cases {
			s := kspec(c.target, c.accept, 2, elr)
			s.election = c.election
			replicas := c.replicas
			if replicas == nil {
				replicas = c.p.Replicas
			}
			got, dirty := electLeader(c.p, replicas, c.target, nil, s)
			if got != c.leader || dirty != c.dirty {
				t.Errorf("elr=%v case %d: leader %v unclean %v, want %v unclean %v", elr, i, got, dirty, c.leader, c.dirty)
			}
		}
	}
}

// barPart is Kafka's BAR: replicas [1 2 3 4], ISR [1 2 3], leader 1, a
// reassignment in progress removing 1 and adding 4.
func barPart() *partitionInfo {
	p := kpart(ids(1, 2, 3, 4), 1, ids(1, 2, 3), nil, none)
	p.Removing, p.Adding = ids(1), ids(4)
	return p
}

// expectAssignment checks a change's leader, leader epoch, ISR and new
// assignment (Kafka's record replicas, addingReplicas, removingReplicas).
func expectAssignment(t *testing.T, r PartitionChangeRecord, leader model.BrokerID, leaderEpoch model.Epoch, isr []model.BrokerID, a Assignment) {
	t.Helper()
	if r.Assignment == nil {
		t.Fatalf("got %v: no new assignment, want %v", r, a)
	}
	got := *r.Assignment
	if r.Leader != leader || r.LeaderEpoch != leaderEpoch || !slices.Equal(r.ISR, isr) ||
		!slices.Equal(got.Replicas, a.Replicas) || len(got.Adding) != len(a.Adding) || !slices.Equal(got.Adding, a.Adding) ||
		len(got.Removing) != len(a.Removing) || !slices.Equal(got.Removing, a.Removing) {
		t.Fatalf("got %v\nwant leader=%v leaderEpoch=%d isr=%v %v", r, leader, leaderEpoch, isr, a)
	}
}

// Kafka: PartitionChangeBuilderTest.testRemovingReplicaReassignment
//
// TestRemovingReplicaReassignment: FOO reassigned to [1 2] removes 3; its
// other replicas are in the ISR, so the same change completes it: replicas
// [1 2], ISR [2 1], and the leader epoch bumps because a replica left.
func TestRemovingReplicaReassignment(t *testing.T) {
	elrVersions(t, func(t *testing.T, elr bool) {
		a := reassignTarget(foo().Replicas, ids(1, 2))
		if !slices.Equal(a.Removing, ids(3)) || len(a.Adding) != 0 || !slices.Equal(a.Replicas, ids(1, 2, 3)) {
			t.Fatalf("reassignment %v, want replicas [1 2 3] removing [3] adding []", a)
		}
		s := fooSpec(elr)
		s.assignment = &a
		r, ok := buildChange(foo(), s)
		if !ok {
			t.Fatal("no change")
		}
		expectAssignment(t, r, 1, 101, ids(2, 1), Assignment{Replicas: ids(1, 2)})
	})
}

// Kafka: PartitionChangeBuilderTest.testAddingReplicaReassignment
//
// TestAddingReplicaReassignment: FOO reassigned to [1 2 3 4] adds 4; the
// change only records the new replicas with 4 adding, and the leader and
// its epoch stay.
func TestAddingReplicaReassignment(t *testing.T) {
	elrVersions(t, func(t *testing.T, elr bool) {
		a := reassignTarget(foo().Replicas, ids(1, 2, 3, 4))
		if len(a.Removing) != 0 || !slices.Equal(a.Adding, ids(4)) || !slices.Equal(a.Replicas, ids(1, 2, 3, 4)) {
			t.Fatalf("reassignment %v, want replicas [1 2 3 4] removing [] adding [4]", a)
		}
		s := fooSpec(elr)
		s.assignment = &a
		r, ok := buildChange(foo(), s)
		if !ok {
			t.Fatal("no change")
		}
		expectAssignment(t, r, 1, 100, ids(2, 1, 3), Assignment{Replicas: ids(1, 2, 3, 4), Adding: ids(4)})
	})
}

// Kafka: PartitionChangeBuilderTest.testIsrEnlargementCompletesReassignment
//
// TestIsrEnlargementCompletesReassignment: BAR's ISR grows to [1 2 3 4],
// so its reassignment completes in the same change: 1 is removed from the
// replicas and the ISR, and 2 is elected in its place.
func TestIsrEnlargementCompletesReassignment(t *testing.T) {
	elrVersions(t, func(t *testing.T, elr bool) {
		s := kspec(ids(1, 2, 3, 4), notBroker(3), 2, elr)
		r, ok := buildChange(barPart(), s)
		if !ok {
			t.Fatal("no change")
		}
		expectAssignment(t, r, 2, 101, ids(2, 3, 4), Assignment{Replicas: ids(2, 3, 4)})
	})
}

// Kafka: PartitionChangeBuilderTest.testRevertReassignment
//
// TestRevertReassignmentOfBar: cancelling BAR's reassignment
// (PartitionReassignmentRevert) gives replicas [1 2 3] and ISR [1 2 3];
// the change drops 4 and the adding and removing lists, and bumps the
// leader epoch with leader 1 kept.
func TestRevertReassignmentOfBar(t *testing.T) {
	elrVersions(t, func(t *testing.T, elr bool) {
		replicas, isr, unclean := revertReassignment(barPart())
		if !slices.Equal(replicas, ids(1, 2, 3)) || !slices.Equal(isr, ids(1, 2, 3)) || unclean {
			t.Fatalf("revert: replicas %v isr %v unclean %v, want [1 2 3] [1 2 3] false", replicas, isr, unclean)
		}
		s := kspec(isr, notBroker(3), 2, elr)
		s.assignment = &Assignment{Replicas: replicas}
		r, ok := buildChange(barPart(), s)
		if !ok {
			t.Fatal("no change")
		}
		expectAssignment(t, r, 1, 101, ids(1, 2, 3), Assignment{Replicas: ids(1, 2, 3)})
	})
}

// Kafka: PartitionChangeBuilderTest.testReassignmentRearrangesReplicas
//
// TestReassignmentRearrangesReplicas: FOO's replicas set to [3 2 1], the
// same brokers in another order: only the replicas change, with no
// adding or removing, and the leader and its epoch stay.
func TestReassignmentRearrangesReplicas(t *testing.T) {
	elrVersions(t, func(t *testing.T, elr bool) {
		s := fooSpec(elr)
		s.assignment = &Assignment{Replicas: ids(3, 2, 1)}
		r, ok := buildChange(foo(), s)
		if !ok {
			t.Fatal("no change")
		}
		expectAssignment(t, r, 1, 100, ids(2, 1, 3), Assignment{Replicas: ids(3, 2, 1)})
	})
}

// Kafka: PartitionChangeBuilderTest.testStoppedLeaderIsDemotedAfterReassignmentCompletesEvenIfNoNewEligibleLeaders
//
// TestStoppedLeaderIsDemotedAfterReassignmentCompletes: a reassignment
// from [0 1] to [2 3] with leader 0 completes when the ISR grows to
// [0 1 2 3]; no remaining replica may lead, and the removed leader must
// not stay leader: the partition is left without one.
func TestStoppedLeaderIsDemotedAfterReassignmentCompletes(t *testing.T) {
	p := kpart(ids(2, 3, 0, 1), 0, ids(0, 1), nil, none)
	p.LeaderEpoch, p.PartitionEpoch = 0, 0
	p.Removing, p.Adding = ids(0, 1), ids(2, 3)
	s := kspec(ids(0, 1, 2, 3), noBroker, 2, false)
	r, ok := buildChange(p, s)
	if !ok {
		t.Fatal("no change")
	}
	expectAssignment(t, r, none, 1, ids(2, 3), Assignment{Replicas: ids(2, 3)})
}
