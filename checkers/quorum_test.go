package checkers

import (
	"strings"
	"testing"

	"kafkasim/model"
)

// Crafted quorum histories: three voters (controllers 100, 101, 102) and
// two observers (brokers 1 and 2). Times are in milliseconds.

const (
	c0 model.BrokerID = 100
	c1 model.BrokerID = 101
	c2 model.BrokerID = 102
	b1 model.BrokerID = 1
	b2 model.BrokerID = 2
)

// qrun builds quorum observations step by step.
type qrun struct{ q model.QuorumObservations }

func newQrun() *qrun { return &qrun{q: model.QuorumObservations{Voters: []model.BrokerID{c0, c1, c2}}} }

func (r *qrun) leader(at int, n model.BrokerID, inc int, e model.Epoch) *qrun {
	r.q.Leaders = append(r.q.Leaders, model.QuorumLeaderObservation{Time: ms(at), Node: n, Incarnation: inc, Epoch: e})
	return r
}

func (r *qrun) hw(at int, n model.BrokerID, inc int, e model.Epoch, hw int64) *qrun {
	r.q.HighWatermarks = append(r.q.HighWatermarks, model.QuorumHWObservation{Time: ms(at), Node: n, Incarnation: inc, Epoch: e, HW: hw})
	return r
}

// apply records n applying offsets from..to (inclusive) of epoch e; the
// digest is a function of offset and epoch, so that two nodes applying the
// same entry report the same digest.
func (r *qrun) apply(at int, n model.BrokerID, inc int, e model.Epoch, from, to int64) *qrun {
	for o := from; o <= to; o++ {
		r.applyDigest(at, n, inc, e, o, digestOf(o, e))
	}
	return r
}

func (r *qrun) applyDigest(at int, n model.BrokerID, inc int, e model.Epoch, o int64, d uint64) *qrun {
	r.q.Applied = append(r.q.Applied, model.QuorumAppliedObservation{Time: ms(at), Node: n, Incarnation: inc, Offset: o, Epoch: e, Digest: d})
	return r
}

func (r *qrun) snapshot(at int, n model.BrokerID, inc int, end int64) *qrun {
	r.q.Snapshots = append(r.q.Snapshots, model.QuorumSnapshotObservation{Time: ms(at), Node: n, Incarnation: inc, Offset: end})
	return r
}

func digestOf(o int64, e model.Epoch) uint64 { return uint64(o)*1000003 + uint64(e) }

var everyNode = []model.BrokerID{c0, c1, c2, b1, b2}

// cleanQuorum is a correct run: 100 leads epoch 1 and commits offsets
// 0..5; it crashes; 101 leads epoch 2 and commits 6..9. 100 restarts
// (incarnation 2) with a lower high watermark than it had, replays from
// its own snapshot at 4 and catches up. Broker 1 restarts too, lagging,
// and gets the leader's snapshot ending at 8. Broker 2 fell behind and
// catches up late.
func cleanQuorum() *qrun {
	r := newQrun()
	r.leader(10, c0, 1, 1)
	r.hw(20, c0, 1, 1, 4)
	for _, n := range []model.BrokerID{c1, c2, b1, b2} {
		r.hw(21, n, 1, 1, 4)
	}
	for _, n := range everyNode {
		r.apply(22, n, 1, 1, 0, 3)
	}
	r.hw(30, c0, 1, 1, 6).hw(31, c1, 1, 1, 6).hw(31, c2, 1, 1, 6).hw(31, b1, 1, 1, 6)
	r.apply(30, c0, 1, 1, 4, 5).apply(31, c1, 1, 1, 4, 5).apply(31, c2, 1, 1, 4, 5).apply(31, b1, 1, 1, 4, 5)
	// 100 crashes at 40; 101 wins epoch 2 and commits its entries.
	r.leader(100, c1, 1, 2)
	r.hw(110, c1, 1, 2, 8).hw(111, c2, 1, 2, 8)
	r.apply(110, c1, 1, 2, 6, 7).apply(111, c2, 1, 2, 6, 7)
	// 100 restarts: its own snapshot ends at 4, its log holds 4..7.
	r.snapshot(120, c0, 2, 4)
	r.hw(121, c0, 2, 2, 5) // below its old 6: capped at what it has fetched so far
	r.apply(121, c0, 2, 1, 4, 4)
	r.hw(122, c0, 2, 2, 8)
	r.apply(122, c0, 2, 1, 5, 5).apply(122, c0, 2, 2, 6, 7)
	// Broker 1 restarts and is sent the leader's snapshot ending at 8.
	r.hw(130, b1, 2, 2, 8)
	r.snapshot(130, b1, 2, 8)
	r.hw(140, c1, 1, 2, 10).hw(141, c2, 1, 2, 10).hw(141, c0, 2, 2, 10).hw(141, b1, 2, 2, 10)
	r.apply(140, c1, 1, 2, 8, 9).apply(141, c2, 1, 2, 8, 9).apply(141, c0, 2, 2, 8, 9).apply(141, b1, 2, 2, 8, 9)
	// Broker 2 was slow: it catches up on everything at once.
	r.hw(150, b2, 1, 2, 10)
	r.apply(150, b2, 1, 1, 4, 5).apply(150, b2, 1, 2, 6, 9)
	return r
}

func checkQuorum(t *testing.T, r *qrun) Result {
	t.Helper()
	return check(t, Input{Observations: model.Observations{Quorum: r.q}}, Options{})
}

// mustFindQuorum asserts a quorum violation of the anomaly whose detail
// names every one of words, and returns it.
func mustFindQuorum(t *testing.T, r Result, anomaly string, words ...string) Violation {
	t.Helper()
	for _, v := range find(r, anomaly) {
		ok := v.Checker == CheckerQuorum && v.Error && v.Partition == MetadataPartition && v.Promise == PromiseQuorum
		for _, w := range words {
			ok = ok && strings.Contains(v.Detail, w)
		}
		if ok {
			return v
		}
	}
	t.Fatalf("want %s naming %q; got:\n%s", anomaly, words, dump(r))
	return Violation{}
}

func TestQuorumCleanRunPasses(t *testing.T) {
	mustPass(t, checkQuorum(t, cleanQuorum()))
	// No observations at all: nothing to judge, which is not a pass.
	if r := checkQuorum(t, &qrun{}); r.Valid != ValidUnknown || len(r.Violations) != 0 {
		t.Fatalf("empty input: want unknown with no violations, got:\n%s", dump(r))
	}
}

func TestQuorumSplitBrain(t *testing.T) {
	// 102 also claims epoch 2, which 101 won.
	r := cleanQuorum().leader(105, c2, 1, 2)
	v := mustFindQuorum(t, checkQuorum(t, r), QuorumSplitBrain, "epoch 2", "b101", "b102", "100ms", "105ms")
	if len(find(checkQuorum(t, r), QuorumSplitBrain)) != 1 {
		t.Fatalf("one split epoch, one violation: %v", v)
	}
	// The same node reporting its own epoch again is not two leaders.
	mustPass(t, checkQuorum(t, cleanQuorum().leader(105, c1, 1, 2)))
}

func TestQuorumLateStaleLeaderIsNotSplitBrain(t *testing.T) {
	// 102 wins epoch 1 late (a vote granted before 101's election arrives
	// after it): legal, one leader in each epoch, and a node's own epochs
	// only grow.
	r := newQrun().leader(10, c1, 1, 2).leader(12, c2, 1, 1)
	mustPass(t, checkQuorum(t, r))
}

func TestQuorumNodeEpochRegression(t *testing.T) {
	// 101 led epoch 2, then reports a high watermark move in epoch 1.
	r := cleanQuorum().hw(145, c1, 1, 1, 10)
	mustFindQuorum(t, checkQuorum(t, r), QuorumEpochRegression, "b101", "epoch 1", "145ms", "epoch 2")
	// A voter's epoch is durable: a restart does not excuse going back.
	r = cleanQuorum().hw(145, c0, 3, 1, 10)
	mustFindQuorum(t, checkQuorum(t, r), QuorumEpochRegression, "b100", "voter")
	// A voter leading an older epoch than one it led before.
	r = newQrun().leader(10, c0, 1, 3).leader(20, c0, 2, 2)
	mustFindQuorum(t, checkQuorum(t, r), QuorumEpochRegression, "b100", "became leader of epoch 2", "epoch 3")
	// An observer need not persist its epoch: after a restart it may hear
	// of an older one first (from a deposed leader), but not within one
	// incarnation.
	r = cleanQuorum().hw(160, b2, 2, 1, 10)
	mustPass(t, checkQuorum(t, r))
	r = cleanQuorum().hw(160, b2, 1, 1, 10)
	mustFindQuorum(t, checkQuorum(t, r), QuorumEpochRegression, "b2", "one incarnation")
}

func TestQuorumCommittedLogEpochRegression(t *testing.T) {
	// Offset 10 committed in epoch 1 after offsets of epoch 2: an old
	// leader's entry landed behind the new leader's.
	r := cleanQuorum().hw(160, c1, 1, 2, 11).apply(160, c1, 1, 1, 10, 10)
	mustFindQuorum(t, checkQuorum(t, r), QuorumEpochRegression, "epoch 1 at offset 10", "epoch 2 at offset 9")
}

func TestQuorumCommittedEntryChanged(t *testing.T) {
	// Broker 2 applies a different entry at offset 7 (same epoch, other
	// content): the committed log changed under it.
	r := cleanQuorum()
	for i := range r.q.Applied {
		if a := &r.q.Applied[i]; a.Node == b2 && a.Offset == 7 {
			a.Digest++
		}
	}
	res := checkQuorum(t, r)
	v := mustFindQuorum(t, res, QuorumCommittedChanged, "offset 7", "b101", "b2", "150ms")
	if len(v.Offsets) != 1 || v.Offsets[0] != 7 {
		t.Fatalf("offsets: %v", v.Offsets)
	}
	// A different epoch at the offset is a changed entry too (a leader
	// truncated a committed entry and wrote its own).
	r = cleanQuorum()
	r.applyDigest(200, b2, 2, 3, 9, digestOf(9, 2))
	mustFindQuorum(t, checkQuorum(t, r), QuorumCommittedChanged, "offset 9", "epoch 2", "epoch 3")
}

func TestQuorumAppliedUncommitted(t *testing.T) {
	// Broker 1 applies offset 10 before any high watermark passed it.
	r := cleanQuorum().apply(145, b1, 2, 2, 10, 10)
	mustFindQuorum(t, checkQuorum(t, r), QuorumAppliedUncommitted, "b1", "offset 10", "145ms", "highest 10")
	// Once the leader's high watermark passes it, the same apply is fine
	// (at the same instant too: a node moves its high watermark and
	// applies in one step).
	r = cleanQuorum().hw(145, c1, 1, 2, 11).apply(145, b1, 2, 2, 10, 10)
	mustPass(t, checkQuorum(t, r))
}

func TestQuorumHighWatermarkRegressionPerNode(t *testing.T) {
	// 102's high watermark goes from 10 back to 9 in one incarnation.
	r := cleanQuorum().hw(150, c2, 1, 2, 9)
	v := mustFindQuorum(t, checkQuorum(t, r), QuorumHWRegression, "b102", "from 10", "back to 9", "150ms")
	if len(v.Offsets) != 2 || v.Offsets[0] != 10 || v.Offsets[1] != 9 {
		t.Fatalf("offsets: %v", v.Offsets)
	}
	// The clean run has 100 restarting with a lower high watermark (5 <
	// 6): a restart resets it, as in Kafka (TestQuorumCleanRunPasses).
}

func TestQuorumHighWatermarkRegressionAcrossLeaders(t *testing.T) {
	// 102 becomes leader of epoch 3 and reports 7, below the 10 that 101,
	// leader of epoch 2, had reached: it lost committed entries. Its own
	// series never went back (it is a restarted incarnation).
	r := cleanQuorum().leader(200, c2, 2, 3).hw(210, c2, 2, 3, 7)
	mustFindQuorum(t, checkQuorum(t, r), QuorumHWRegression, "b102, leader of epoch 3", "high watermark 7", "the 10 that b101, leader of epoch 2")
	// A deposed leader still reporting its old epoch is judged against
	// the epochs up to its own: 100, leader of epoch 1, at 6, is not below
	// epoch 1's best.
	r = cleanQuorum().hw(200, c0, 3, 1, 6)
	// (100 is a voter: its epoch going back from 2 to 1 is an epoch
	// regression, reported as such, not as a high watermark one.)
	res := checkQuorum(t, r)
	mustNotFind(t, res, QuorumHWRegression)
	// The new leader's first high watermark at or past the old one is
	// fine.
	mustPass(t, checkQuorum(t, cleanQuorum().leader(200, c2, 2, 3).hw(210, c2, 2, 3, 11)))
}

func TestMetadataReplayGap(t *testing.T) {
	// Broker 2 skips offset 5 in its catch-up.
	r := cleanQuorum()
	var kept []model.QuorumAppliedObservation
	for _, a := range r.q.Applied {
		if a.Node != b2 || a.Offset != 5 {
			kept = append(kept, a)
		}
	}
	r.q.Applied = kept
	res := checkQuorum(t, r)
	v := mustFindQuorum(t, res, MetadataReplayGap, "broker b2", "offset 6", "skipped committed offset 5")
	if len(v.Offsets) != 1 || v.Offsets[0] != 5 {
		t.Fatalf("offsets: %v", v.Offsets)
	}
	// A gap right after a snapshot: 100 restores its snapshot ending at 4,
	// then applies from 5.
	r = cleanQuorum()
	kept = nil
	for _, a := range r.q.Applied {
		if a.Node != c0 || a.Incarnation != 2 || a.Offset != 4 {
			kept = append(kept, a)
		}
	}
	r.q.Applied = kept
	mustFindQuorum(t, checkQuorum(t, r), MetadataReplayGap, "controller b100", "skipped committed offset 4", "its snapshot ending at 4")
}

func TestMetadataReplayOutOfOrder(t *testing.T) {
	// Broker 1 applies offset 8 twice in one incarnation.
	r := cleanQuorum().apply(160, b1, 2, 2, 8, 8)
	mustFindQuorum(t, checkQuorum(t, r), MetadataReplayGap, "broker b1", "offset 8", "replayed twice or out of order")
	// After a restart it replays from its snapshot again: fine.
	r = cleanQuorum().snapshot(160, b1, 3, 8).apply(161, b1, 3, 2, 8, 9)
	mustPass(t, checkQuorum(t, r))
}

func TestMetadataSnapshotGoesBack(t *testing.T) {
	// 102 applied up to 9, then loads a snapshot ending at 6 in the same
	// incarnation: its metadata went back.
	r := cleanQuorum().snapshot(160, c2, 1, 6)
	mustFindQuorum(t, checkQuorum(t, r), MetadataReplayGap, "controller b102", "snapshot ending at 6", "applied up to offset 9")
}

func TestQuorumViolationsSortAfterTheOthers(t *testing.T) {
	r := cleanQuorum().leader(105, c2, 1, 2)
	in := Input{History: acked(), Observations: model.Observations{Quorum: r.q}, Replicas: []ReplicaLog{
		{Broker: 1, TP: t0, HW: 2, Records: ovs(0, "a", 1, "b")},
		{Broker: 2, TP: t0, HW: 2, Records: ovs(0, "a", 1, "y")},
	}}
	res := check(t, in, Options{})
	if n := len(res.Violations); n < 2 || res.Violations[n-1].Checker != CheckerQuorum || res.Valid != ValidViolation {
		t.Fatalf("quorum violations come last:\n%s", dump(res))
	}
}
