package checkers

import (
	"slices"
	"strings"
	"testing"

	"kafkasim/model"
)

func ovs(kv ...any) []model.OffsetValue { return recs(t0, kv...).Records }

// acked is a small history all replica tests share: a at 0, b at 1, both
// read.
func acked() model.History {
	return hist(
		sendOK(0, t0, "a", 0, 0, 1),
		sendOK(0, t0, "b", 1, 1, 2),
		poll(1, 3, 4, recs(t0, 0, "a", 1, "b")),
	)
}

func TestReplicaDivergence(t *testing.T) {
	// KIP-101 (2): both replicas lost different unflushed tails and the
	// logs diverged below the high watermark.
	logs := []ReplicaLog{
		{Broker: 1, TP: t0, HW: 2, Records: ovs(0, "a", 1, "b")},
		{Broker: 2, TP: t0, HW: 1, Records: ovs(0, "a", 1, "y")},
	}
	r := check(t, Input{History: acked(), Replicas: logs}, Options{})
	v := mustFind(t, r, ReplicaDivergence, t0, 1)
	if v.Values[0] != "b" || v.Values[1] != "y" || !v.Error {
		t.Fatalf("divergence: %+v", v)
	}
	mustNotFind(t, r, InconsistentOffsets) // b2's y is above its own HW: uncommitted there
	// Above every high watermark replicas may differ until truncation.
	logs[0].HW, logs[1].HW = 1, 1
	mustPass(t, check(t, Input{History: acked(), Replicas: logs}, Options{}))
}

func TestReplicaDisagreesWithClients(t *testing.T) {
	logs := []ReplicaLog{
		{Broker: 1, TP: t0, HW: 2, Records: ovs(0, "a", 1, "b")},
		{Broker: 2, TP: t0, HW: 2, Records: ovs(0, "x", 1, "b")},
	}
	h := hist(sendOK(0, t0, "a", 0, 0, 1), sendOK(0, t0, "b", 1, 1, 2), sendInfo(2, t0, "x", 0, 9), poll(1, 3, 4, recs(t0, 0, "a", 1, "b")))
	r := check(t, Input{History: h, Replicas: logs}, Options{})
	v := mustFind(t, r, InconsistentOffsets, t0, 0)
	if v.Checker != CheckerReplicas || v.Values[1] != "x" {
		t.Fatalf("replica vs history: %+v", v)
	}
	logs[1].Records = ovs(0, "a", 1, "b")
	mustPass(t, check(t, Input{History: h, Replicas: logs}, Options{}))
}

func TestAckedWriteLost(t *testing.T) {
	// b was acknowledged at 1 and is in no replica's log.
	logs := []ReplicaLog{
		{Broker: 1, TP: t0, HW: 1, Records: ovs(0, "a")},
		{Broker: 2, TP: t0, HW: 1, Records: ovs(0, "a")},
	}
	r := check(t, Input{History: acked(), Replicas: logs}, Options{})
	if v := mustFind(t, r, AckedWriteLost, t0, 1); !v.Error || v.Values[0] != "b" {
		t.Fatalf("acked-write-lost: %+v", v)
	}
	// Every ISR replica lost its disk: no promise.
	mustPass(t, check(t, Input{History: acked(), Replicas: logs, DiskLost: tps(t0)}, Options{}))
	// acks=1: reported, allowed.
	r = check(t, Input{History: acked(), Replicas: logs}, Options{Acks: "1"})
	if v := mustFind(t, r, AckedWriteLost, t0, 1); v.Error || r.Valid != ValidOK {
		t.Fatalf("acks=1: %s", dump(r))
	}
	// One replica kept it.
	logs[1].Records = ovs(0, "a", 1, "b")
	mustPass(t, check(t, Input{History: acked(), Replicas: logs}, Options{}))
}

func TestHighWatermarkRegression(t *testing.T) {
	obs := []model.HWObservation{
		{Time: ms(0), TP: t0, Broker: 1, HW: 0},
		{Time: ms(2), TP: t0, Broker: 1, HW: 2},
		{Time: ms(5), TP: t0, Broker: 1, HW: 1},
	}
	r := check(t, Input{History: acked(), Observations: model.Observations{HighWatermarks: obs}}, Options{})
	mustFind(t, r, HWRegression, t0, 2, 1)
	// A broker that leads again (after a restart, say, whose checkpointed
	// value may lag) does so under a new leader epoch: a new series.
	obs[2].Epoch = 1
	mustPass(t, check(t, Input{History: acked(), Observations: model.Observations{HighWatermarks: obs}}, Options{}))
}

func TestReadAboveHighWatermark(t *testing.T) {
	obs := []model.HWObservation{
		{Time: ms(0), TP: t0, Broker: 1, HW: 0},
		{Time: ms(2), TP: t0, Broker: 1, HW: 1}, // only a is committed when the poll returns at 4
	}
	r := check(t, Input{History: acked(), Observations: model.Observations{HighWatermarks: obs}}, Options{})
	if v := mustFind(t, r, ReadAboveHW, t0, 1); v.Ops[0] != 2 {
		t.Fatalf("read-above-hw: %+v", v)
	}
	obs = append(obs, model.HWObservation{Time: ms(3), TP: t0, Broker: 2, HW: 2})
	mustPass(t, check(t, Input{History: acked(), Observations: model.Observations{HighWatermarks: obs}}, Options{}))
}

func TestLeaders(t *testing.T) {
	obs := []model.LeaderObservation{
		{Time: ms(0), TP: t0, Epoch: 1, Leader: 1},
		{Time: ms(5), TP: t0, Epoch: 2, Leader: 2},
		{Time: ms(6), TP: t0, Epoch: 2, Leader: 3},
	}
	r := check(t, Input{History: acked(), Observations: model.Observations{Leaders: obs}}, Options{})
	mustFind(t, r, SplitBrain, t0)
	mustNotFind(t, r, EpochRegression)
	obs[2].Epoch = 3
	mustPass(t, check(t, Input{History: acked(), Observations: model.Observations{Leaders: obs}}, Options{}))
	// A zombie: broker 1, cut off, still takes the epoch 1 it heard of
	// after broker 2 led epoch 2. Fenced by epochs, it is no regression.
	obs[2].Epoch = 1
	obs[2].Leader = 1
	mustPass(t, check(t, Input{History: acked(), Observations: model.Observations{Leaders: obs}}, Options{}))
	// Broker 2 going back from epoch 2 to an older epoch is.
	obs[2].Leader, obs[2].Epoch = 2, 0
	r = check(t, Input{History: acked(), Observations: model.Observations{Leaders: obs}}, Options{})
	mustFind(t, r, EpochRegression, t0)
	mustNotFind(t, r, SplitBrain)
}

func TestDoubleOwner(t *testing.T) {
	// Eager handover done right: 1 loses t0 at 5, 2 gains it at 6.
	good := hist(
		rebalance(1, 0, "g", 1, tps(t0, t1), nil),
		rebalance(1, 5, "g", 2, nil, tps(t0)),
		rebalance(2, 6, "g", 2, tps(t0), nil),
	)
	mustPass(t, check(t, Input{History: good}, Options{}))
	// 2 gains t0 while 1 still holds it (it loses it only at 7).
	bad := hist(
		rebalance(1, 0, "g", 1, tps(t0, t1), nil),
		rebalance(2, 6, "g", 2, tps(t0), nil),
		rebalance(1, 7, "g", 2, nil, tps(t0)),
	)
	r := check(t, Input{History: bad}, Options{})
	if v := mustFind(t, r, DoubleOwner, t0); v.Ops[0] != 0 || v.Ops[1] != 1 {
		t.Fatalf("double-owner: %+v", v)
	}
	// Two members given t0 in one generation.
	same := hist(
		rebalance(1, 0, "g", 1, tps(t0), nil),
		rebalance(1, 1, "g", 1, nil, tps(t0)),
		rebalance(2, 2, "g", 1, tps(t0), nil),
	)
	mustFind(t, check(t, Input{History: same}, Options{}), DoubleOwner, t0)
	// A member that crashed (its last op indeterminate) owns nothing after.
	crash := hist(
		rebalance(1, 0, "g", 1, tps(t0), nil),
		model.Op{Process: 1, Type: model.OpInfo, F: model.FPoll, Time: ms(1), End: ms(3), Offset: model.NoOffset, Error: "timeout"},
		rebalance(2, 50, "g", 2, tps(t0), nil),
	)
	mustPass(t, check(t, Input{History: crash}, Options{}))
	// Different groups may each own it.
	other := hist(rebalance(1, 0, "g", 1, tps(t0), nil), rebalance(2, 1, "h", 1, tps(t0), nil))
	mustPass(t, check(t, Input{History: other}, Options{}))
}

func TestCommitRegression(t *testing.T) {
	bad := hist(
		commit(1, 0, 1, "g", t0, 5),
		commit(2, 2, 3, "g", t0, 3),
	)
	r := check(t, Input{History: bad}, Options{})
	if v := mustFind(t, r, CommitRegression, t0, 5, 3); v.Ops[0] != 0 || v.Ops[1] != 1 {
		t.Fatalf("commit-regression: %+v", v)
	}
	// An explicit seek between the commits licenses it.
	mustPass(t, check(t, Input{History: hist(commit(1, 0, 1, "g", t0, 5), seek(2, 1, t0, 3), commit(2, 2, 3, "g", t0, 3))}, Options{}))
	// Concurrent commits are not ordered.
	mustPass(t, check(t, Input{History: hist(commit(1, 0, 3, "g", t0, 5), commit(2, 1, 4, "g", t0, 3))}, Options{}))
	// Another group's offsets are its own.
	mustPass(t, check(t, Input{History: hist(commit(1, 0, 1, "g", t0, 5), commit(2, 2, 3, "h", t0, 3))}, Options{}))
}

func TestGenerationObservations(t *testing.T) {
	gens := []model.GenerationObservation{
		{Time: ms(0), Group: "g", Generation: 1, Members: []model.MemberAssignment{{MemberID: "m1", Partitions: tps(t0)}, {MemberID: "m2", Partitions: tps(t1)}}},
		{Time: ms(5), Group: "g", Generation: 2, Members: []model.MemberAssignment{{MemberID: "m1", Partitions: tps(t0, t1)}}},
	}
	mustPass(t, check(t, Input{History: acked(), Observations: model.Observations{Generations: gens}}, Options{}))
	gens[1].Generation = 0
	mustFind(t, check(t, Input{History: acked(), Observations: model.Observations{Generations: gens}}, Options{}), GenerationRegression, model.TopicPartition{})
	gens[1].Generation = 2
	gens[1].Members = append(gens[1].Members, model.MemberAssignment{MemberID: "m2", Partitions: tps(t1)})
	mustFind(t, check(t, Input{History: acked(), Observations: model.Observations{Generations: gens}}, Options{}), DoubleOwner, t1)
}

// A coordinator deposed while paused wakes with its old group and may
// complete the generation it had, after the new coordinator completed a
// later one: that is the deposed coordinator's view, not a regression.
// The nearby cases stay errors: the same going back under one coordinator,
// or under a newer one.
func TestGenerationRegressionIgnoresADeposedCoordinator(t *testing.T) {
	gens := func(oldEpoch model.Epoch) []model.GenerationObservation {
		return []model.GenerationObservation{
			{Time: ms(0), Epoch: 1, Group: "g", Generation: 1},
			{Time: ms(5), Epoch: 2, Group: "g", Generation: 2},
			{Time: ms(6), Epoch: oldEpoch, Group: "g", Generation: 1},
			{Time: ms(7), Epoch: 2, Group: "g", Generation: 3},
		}
	}
	mustPass(t, check(t, Input{History: acked(), Observations: model.Observations{Generations: gens(1)}}, Options{}))
	for _, e := range []model.Epoch{2, 3} {
		mustFind(t, check(t, Input{History: acked(), Observations: model.Observations{Generations: gens(e)}}, Options{}), GenerationRegression, model.TopicPartition{})
	}
}

// Empty partition results in a poll are legal and must not trip any
// checker.
func TestEmptyPollRecords(t *testing.T) {
	h := hist(sendOK(0, t0, "a", 0, 0, 1), poll(1, 2, 3, model.PartitionRecords{TP: t0}), poll(1, 4, 5, recs(t0, 0, "a")))
	obs := model.Observations{HighWatermarks: []model.HWObservation{{Time: ms(1), TP: t0, Broker: 1, HW: 1}}}
	mustPass(t, check(t, Input{History: h, Observations: obs}, Options{}))
}

// A replica outside the ISR when the logs were read may not have truncated
// yet: it is left out of the agreement check; in the ISR it is judged.
func TestOutOfSyncReplicaLeftOutOfAgreement(t *testing.T) {
	h := hist(sendOK(1, t0, "new0", 0, 10, 11))
	replicas := []ReplicaLog{
		{Broker: 1, TP: t0, HW: 1, Records: []model.OffsetValue{{Offset: 0, Value: "new0"}}},
		{Broker: 2, TP: t0, HW: 1, Records: []model.OffsetValue{{Offset: 0, Value: "old0"}}, OutOfSync: true},
	}
	mustNotFind(t, check(t, Input{History: h, Replicas: replicas}, Options{}), ReplicaDivergence)
	replicas[1].OutOfSync = false
	mustFind(t, check(t, Input{History: h, Replicas: replicas}, Options{}), ReplicaDivergence, t0, 0)
}

// A replica that never rejoined the ISR after the liveness phase is judged
// with the others: its divergence is found, and its absence from the ISR
// is an error of its own. One that rejoined and agrees passes.
func TestReplicaThatNeverRejoinedIsJudged(t *testing.T) {
	h := hist(sendOK(1, t0, "new0", 0, 10, 11), sendOK(1, t0, "new1", 1, 12, 13), poll(2, 14, 15, recs(t0, 0, "new0", 1, "new1")))
	diverged := []ReplicaLog{
		{Broker: 1, TP: t0, HW: 2, Records: []model.OffsetValue{{Offset: 0, Value: "new0"}, {Offset: 1, Value: "new1"}}},
		{Broker: 2, TP: t0, HW: 2, Records: []model.OffsetValue{{Offset: 0, Value: "new0"}, {Offset: 1, Value: "new1"}}},
		{Broker: 3, TP: t0, HW: 1, Records: []model.OffsetValue{{Offset: 0, Value: "new0"}, {Offset: 1, Value: "old1"}}, OutOfSync: true, NeverRejoined: true},
	}
	r := check(t, Input{History: h, Replicas: diverged}, Options{})
	mustFind(t, r, ReplicaDivergence, t0, 1)
	v := mustFind(t, r, ReplicaNotRejoined, t0, 1)
	if !v.Error || !strings.Contains(v.Detail, `offset 1 holds "old1" where the ISR holds "new1"`) {
		t.Fatalf("want an error naming the disagreement, got %+v", v)
	}
	if r.Valid != ValidViolation {
		t.Fatalf("want a violation, got %s", r.Valid)
	}
	// Still outside, but agreeing: the liveness failure alone, saying so.
	agrees := slices.Clone(diverged)
	agrees[2].Records = []model.OffsetValue{{Offset: 0, Value: "new0"}}
	r = check(t, Input{History: h, Replicas: agrees}, Options{})
	mustNotFind(t, r, ReplicaDivergence)
	if v := mustFind(t, r, ReplicaNotRejoined, t0); !v.Error || !strings.Contains(v.Detail, "agrees") {
		t.Fatalf("want an error saying the log agrees, got %+v", v)
	}
	// Rejoined and agreeing: nothing to report.
	rejoined := slices.Clone(diverged)
	rejoined[2] = ReplicaLog{Broker: 3, TP: t0, HW: 2, Records: []model.OffsetValue{{Offset: 0, Value: "new0"}, {Offset: 1, Value: "new1"}}}
	mustPass(t, check(t, Input{History: h, Replicas: rejoined}, Options{}))
}

// An assigned replica its broker hosts no log of (KAFKA-14616's failed
// replica) is reported as never rejoined, saying it hosts nothing, and
// its empty log is not taken for lost records; the same replica back in
// the ISR with the others' log passes.
func TestUnhostedReplicaThatNeverRejoinedIsReported(t *testing.T) {
	h := hist(sendOK(1, t0, "new0", 0, 10, 11), poll(2, 14, 15, recs(t0, 0, "new0")))
	in := []ReplicaLog{
		{Broker: 1, TP: t0, HW: 1, Records: []model.OffsetValue{{Offset: 0, Value: "new0"}}},
		{Broker: 2, TP: t0, HW: model.NoOffset, OutOfSync: true, NeverRejoined: true, Unhosted: true},
	}
	r := check(t, Input{History: h, Replicas: in}, Options{})
	if v := mustFind(t, r, ReplicaNotRejoined, t0); !v.Error || !strings.Contains(v.Detail, "hosts no log") {
		t.Fatalf("want an error saying b2 hosts nothing, got %+v", v)
	}
	mustNotFind(t, r, AckedWriteLost)
	mustNotFind(t, r, ReplicaDivergence)
	in[1] = ReplicaLog{Broker: 2, TP: t0, HW: 1, Records: []model.OffsetValue{{Offset: 0, Value: "new0"}}}
	mustPass(t, check(t, Input{History: h, Replicas: in}, Options{}))
}

// TestDoubleOwnerSaysWhetherTheOldOwnerPolled: an overlap of ownership is
// an allowed finding that says so when the old owner polled no records of
// the partition after the handover, and is judged by the zombie rule
// (zombie_test.go) when it did.
func TestDoubleOwnerSaysWhetherTheOldOwnerPolled(t *testing.T) {
	base := []model.Op{
		sendOK(5, t0, "a", 0, 0, 1),
		sendOK(5, t0, "b", 1, 0, 1),
		rebalance(1, 2, "g", 1, tps(t0), nil),
		poll(1, 3, 4, recs(t0, 0, "a")),
		rebalance(2, 6, "g", 2, tps(t0), nil), // 1 never hears it lost t0 until 20
		poll(2, 7, 8, recs(t0, 1, "b")),
	}
	quiet := hist(append(slices.Clone(base), rebalance(1, 20, "g", 2, nil, tps(t0)))...)
	r := check(t, Input{History: quiet}, Options{})
	v := mustFind(t, r, DoubleOwner, t0)
	if v.Error || !strings.Contains(v.Detail, "polled no records") || !strings.Contains(v.Promise, "allows") {
		t.Fatalf("an overlap without a poll by the old owner: want an allowed finding that says so, got %+v", v)
	}
	if r.Valid != ValidOK {
		t.Fatalf("want ok, got %s", r.Valid)
	}
	// The old owner fetches during the overlap: two consumers at once,
	// an error where the consumers promise to fence themselves.
	busy := hist(append(slices.Clone(base), poll(1, 9, 10, recs(t0, 1, "b")), rebalance(1, 20, "g", 2, nil, tps(t0)))...)
	v = mustFind(t, check(t, Input{History: busy}, Options{SelfFencing: true}), DoubleOwner, t0)
	if !v.Error || !slices.Contains(v.Ops, 6) || !strings.Contains(v.Detail, "polled records of it after the handover (ops 6)") {
		t.Fatalf("an overlap with a poll by the old owner: want an error naming the poll, got %+v", v)
	}
	// Its poll before the handover does not count.
	before := hist(append(slices.Clone(base[:4]), poll(1, 4, 5, recs(t0, 1, "b")), base[4], base[5], rebalance(1, 20, "g", 2, nil, tps(t0)))...)
	if v := mustFind(t, check(t, Input{History: before}, Options{SelfFencing: true}), DoubleOwner, t0); v.Error {
		t.Fatalf("a poll before the handover made it an error: %+v", v)
	}
}
