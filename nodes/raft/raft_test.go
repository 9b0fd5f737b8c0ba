package raft

import (
	"fmt"
	"testing"
	"time"

	"kafkasim/model"
	"kafkasim/sim"
)

func TestElectsOneLeader(t *testing.T) {
	for _, voters := range []int{1, 3, 5} {
		t.Run(fmt.Sprintf("voters=%d", voters), func(t *testing.T) {
			w := newWorld(t, 1, worldOptions{voters: voters, observers: 1})
			l := w.waitLeader(10 * time.Second)
			w.run(5 * time.Second)
			if l2, ok := w.leader(); !ok || l2 != l {
				t.Fatalf("leader moved from %v to %v in a quiet cluster", l, l2)
			}
			_, epoch := w.host(l).r.Leader()
			for _, id := range append(w.voters, w.observers...) {
				h := w.host(id)
				if got, e := h.r.Leader(); got != l || e != epoch {
					t.Errorf("%v thinks %v leads epoch %d, want %v in %d", id, got, e, l, epoch)
				}
				if id != l && (h.sm.leader != l || h.sm.isMe) {
					t.Errorf("%v was told leader %v isMe=%v", id, h.sm.leader, h.sm.isMe)
				}
			}
			if !w.host(l).sm.isMe {
				t.Errorf("the leader was not told it leads")
			}
			w.check()
		})
	}
}

// TestProposeCommitsEverywhere: entries proposed on the leader are applied
// in order by every voter and the observer, and a non-leader refuses.
func TestProposeCommitsEverywhere(t *testing.T) {
	w := newWorld(t, 2, worldOptions{voters: 3, observers: 1})
	l := w.waitLeader(10 * time.Second)
	for _, id := range w.voters {
		if id != l {
			h := w.host(id)
			if _, ok := h.r.Propose(h.env, [][]byte{[]byte("x")}); ok {
				t.Fatalf("follower %v accepted a proposal", id)
			}
		}
	}
	if n := w.proposeN("v", 50, time.Millisecond); n != 50 {
		t.Fatalf("leader took %d of 50", n)
	}
	w.run(time.Second)
	var want []string
	for i := 0; i < 50; i++ {
		want = append(want, fmt.Sprintf("v%d", i))
	}
	w.converged(want)
	w.check()
}

// TestReelection: after the leader crashes, is cut off, or pauses, the
// others elect a new leader in a higher epoch and keep committing; the old
// leader catches up when it returns.
func TestReelection(t *testing.T) {
	faults := map[string]struct {
		do, undo func(w *world, id model.BrokerID)
	}{
		"crash":   {func(w *world, id model.BrokerID) { w.crash(id) }, func(w *world, id model.BrokerID) { w.restart(id) }},
		"isolate": {func(w *world, id model.BrokerID) { w.isolate(id) }, func(w *world, id model.BrokerID) { w.s.HealAll() }},
		"pause": {func(w *world, id model.BrokerID) { w.s.Pause(sim.NodeID(id)) },
			func(w *world, id model.BrokerID) { w.s.Resume(sim.NodeID(id)) }},
	}
	for _, name := range []string{"crash", "isolate", "pause"} {
		f := faults[name]
		for _, voters := range []int{3, 5} {
			t.Run(fmt.Sprintf("%s/voters=%d", name, voters), func(t *testing.T) {
				w := newWorld(t, 3, worldOptions{voters: voters, observers: 1})
				old := w.waitLeader(10 * time.Second)
				_, oldEpoch := w.host(old).r.Leader()
				w.proposeN("a", 10, time.Millisecond)
				w.run(100 * time.Millisecond)
				f.do(w, old)
				l := w.waitNewLeader(old, 15*time.Second)
				if l == old {
					t.Fatalf("%v still leads", old)
				}
				if _, e := w.host(l).r.Leader(); e <= oldEpoch {
					t.Fatalf("new leader in epoch %d, old was %d", e, oldEpoch)
				}
				if n := w.proposeN("b", 10, time.Millisecond); n != 10 {
					t.Fatalf("new leader took %d of 10", n)
				}
				f.undo(w, old)
				w.run(8 * time.Second)
				w.converged(nil)
				if got := len(w.values(w.voters[0])); got != 20 {
					t.Fatalf("applied %d values, want 20", got)
				}
				w.check()
			})
		}
	}
}

// TestPreVoteKeepsEpoch: a follower cut off from everyone stands again and
// again, but only with pre-votes, which change no epoch; when it returns,
// the leader and the epoch are unchanged. Without pre-vote it would return
// with a higher epoch and depose the leader.
func TestPreVoteKeepsEpoch(t *testing.T) {
	w := newWorld(t, 4, worldOptions{voters: 3, observers: 1})
	l := w.waitLeader(10 * time.Second)
	_, epoch := w.host(l).r.Leader()
	var f model.BrokerID
	for _, id := range w.voters {
		if id != l {
			f = id
			break
		}
	}
	w.isolate(f)
	w.run(20 * time.Second)
	if got := w.host(f).r.Epoch(); got != epoch {
		t.Fatalf("the cut-off follower raised its epoch to %d (was %d)", got, epoch)
	}
	w.s.HealAll()
	w.run(5 * time.Second)
	if got, e := w.host(l).r.Leader(); got != l || e != epoch || !w.host(l).r.IsLeader() {
		t.Fatalf("after healing: leader %v epoch %d, want %v epoch %d", got, e, l, epoch)
	}
	if got, e := w.host(f).r.Leader(); got != l || e != epoch {
		t.Fatalf("the healed follower follows %v in %d", got, e)
	}
	w.check()
}

// TestDeposedLeaderTruncates: a leader cut off keeps accepting proposals
// it cannot commit; the others elect a leader that commits other entries;
// when the old leader returns it truncates its uncommitted tail, and none
// of those entries is ever applied.
func TestDeposedLeaderTruncates(t *testing.T) {
	w := newWorld(t, 5, worldOptions{voters: 3, observers: 1})
	old := w.waitLeader(10 * time.Second)
	w.proposeN("a", 5, time.Millisecond)
	w.run(100 * time.Millisecond)
	w.isolate(old)
	h := w.host(old)
	for i := 0; i < 5; i++ {
		if _, ok := h.r.Propose(h.env, [][]byte{[]byte(fmt.Sprintf("lost%d", i))}); !ok {
			t.Fatalf("the cut-off leader refused a proposal before resigning")
		}
	}
	oldEnd := h.r.EndOffset()
	w.run(200 * time.Millisecond)
	if h.r.HighWatermark() >= oldEnd {
		t.Fatalf("a cut-off leader committed")
	}
	// Let the others elect; keep the old node cut off until then.
	l := w.waitNewLeader(old, 15*time.Second)
	nh := w.host(l)
	for i := 0; i < 8; i++ {
		if _, ok := nh.r.Propose(nh.env, [][]byte{[]byte(fmt.Sprintf("b%d", i))}); !ok {
			t.Fatal("the new leader refused")
		}
	}
	w.run(time.Second)
	w.s.HealAll()
	w.run(5 * time.Second)
	w.converged(nil)
	for _, v := range w.values(old) {
		if len(v) > 4 && v[:4] == "lost" {
			t.Fatalf("the uncommitted entry %s was applied", v)
		}
	}
	if got := len(w.values(old)); got != 13 {
		t.Fatalf("the old leader applied %d values, want 13", got)
	}
	w.check()
}

// TestCommittedSurvivePowerLoss: entries committed before a power loss of
// a minority, or of every node at once, are still there after it.
func TestCommittedSurvivePowerLoss(t *testing.T) {
	for _, all := range []bool{false, true} {
		t.Run(fmt.Sprintf("all=%v", all), func(t *testing.T) {
			w := newWorld(t, 6, worldOptions{voters: 3, observers: 1})
			l := w.waitLeader(10 * time.Second)
			w.proposeN("a", 20, time.Millisecond)
			w.run(200 * time.Millisecond)
			committed := w.host(l).r.HighWatermark()
			victims := []model.BrokerID{}
			for _, id := range w.voters {
				if all || id != l && len(victims) == 0 {
					victims = append(victims, id)
				}
			}
			if all {
				victims = append(victims, w.observers...)
			}
			for _, id := range victims {
				w.powerLoss(id)
			}
			w.run(time.Second)
			for _, id := range victims {
				w.restart(id)
			}
			nl := w.waitLeader(15 * time.Second)
			w.proposeN("b", 5, time.Millisecond)
			w.run(3 * time.Second)
			if hw := w.host(nl).r.HighWatermark(); hw < committed {
				t.Fatalf("high watermark %d below the %d committed before", hw, committed)
			}
			w.converged(nil)
			if got := len(w.values(w.voters[0])); got != 25 {
				t.Fatalf("applied %d values after the power loss, want 25", got)
			}
			w.check()
		})
	}
}

// TestSnapshotsBoundLog: with a snapshot every 10 entries, the log keeps
// only the tail, and a follower and an observer that were down while the
// leader deleted what they lacked catch up from the snapshot.
func TestSnapshotsBoundLog(t *testing.T) {
	w := newWorld(t, 7, worldOptions{voters: 3, observers: 1, snapshotEvery: 10})
	l := w.waitLeader(10 * time.Second)
	var f model.BrokerID
	for _, id := range w.voters {
		if id != l {
			f = id
			break
		}
	}
	w.crash(f)
	w.crash(w.observers[0])
	w.proposeN("a", 100, time.Millisecond)
	w.run(time.Second)
	if start := w.host(l).r.LogStartOffset(); start < 90 {
		t.Fatalf("the leader's log starts at %d after 100 entries with a snapshot every 10", start)
	}
	w.restart(f)
	w.restart(w.observers[0])
	w.run(3 * time.Second)
	w.converged(nil)
	if got := len(w.values(f)); got != 100 {
		t.Fatalf("the restarted follower holds %d values, want 100", got)
	}
	if w.watch.snaps[f] == 0 || w.watch.snaps[w.observers[0]] == 0 {
		t.Fatalf("snapshot loads: %v", w.watch.snaps)
	}
	// A restart of everyone recovers from the snapshots and the tails.
	for _, id := range append(w.voters, w.observers...) {
		w.crash(id)
		w.restart(id)
	}
	w.waitLeader(15 * time.Second)
	w.run(2 * time.Second)
	w.converged(nil)
	if got := len(w.values(l)); got != 100 {
		t.Fatalf("after a full restart %d values, want 100", got)
	}
	w.check()
}

// TestDeterminism: one seed, one trace hash; another seed, another.
func TestDeterminism(t *testing.T) {
	run := func(seed uint64) uint64 {
		w := newWorld(t, seed, worldOptions{voters: 3, observers: 1, snapshotEvery: 7})
		w.waitLeader(10 * time.Second)
		w.proposeN("a", 20, time.Millisecond)
		w.crash(w.voters[0])
		w.run(5 * time.Second)
		w.restart(w.voters[0])
		w.proposeN("b", 20, time.Millisecond)
		w.run(3 * time.Second)
		return w.s.Hash()
	}
	if a, b := run(9), run(9); a != b {
		t.Fatalf("seed 9 gave hashes %x and %x", a, b)
	}
	if run(9) == run(10) {
		t.Fatal("seeds 9 and 10 gave the same hash")
	}
}
