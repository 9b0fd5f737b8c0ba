package raft

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// loadValue is a 100-byte value, so that replay times are round numbers.
func loadValue(i int) string {
	v := fmt.Sprintf("v%d-", i)
	return v + strings.Repeat("x", 100-len(v))
}

// catchUpAfterOutage crashes the world's observer, commits n 100-byte
// values, restarts the observer and returns how many values it holds at
// each of the given times after the restart.
func catchUpAfterOutage(t *testing.T, o worldOptions, n int, at ...time.Duration) []int {
	t.Helper()
	w := newWorld(t, 3, o)
	w.waitLeader(10 * time.Second)
	obs := w.observers[0]
	w.run(time.Second)
	w.crash(obs)
	for i := range n {
		if !w.propose(loadValue(i)) {
			t.Fatalf("value %d not proposed", i)
		}
		w.run(time.Millisecond)
	}
	w.run(time.Second)
	w.restart(obs)
	start := w.s.Now()
	held := make([]int, len(at))
	for i, d := range at {
		w.s.Run(start + d)
		held[i] = len(w.values(obs))
	}
	w.check()
	return held
}

// TestLoadRateChargesLogReplay: an observer that missed 100 entries of
// 100 bytes replays them at LoadRate (10,000 B/s: 10 ms an entry), so it
// holds about half of them 0.5 s after its restart and all of them after
// 1.1 s; with loading free it holds all of them within 50 ms.
func TestLoadRateChargesLogReplay(t *testing.T) {
	free := catchUpAfterOutage(t, worldOptions{voters: 3, observers: 1, snapshotEvery: 1 << 30}, 100, 50*time.Millisecond)
	if free[0] != 100 {
		t.Fatalf("loading free: %d of 100 values 50 ms after the restart", free[0])
	}
	charged := catchUpAfterOutage(t, worldOptions{voters: 3, observers: 1, snapshotEvery: 1 << 30, loadRate: 10_000}, 100,
		50*time.Millisecond, 500*time.Millisecond, 1100*time.Millisecond)
	if charged[0] >= 10 || charged[1] < 40 || charged[1] > 60 || charged[2] != 100 {
		t.Fatalf("at 10,000 B/s: %v values 50 ms, 500 ms and 1.1 s after the restart, want under 10, about 50, and 100", charged)
	}
}

// TestLoadRateChargesSnapshotRestore: an observer that missed 100 entries
// the leader has snapshotted fetches the snapshot (about 10 KB) and
// restores it only once its bytes are replayed at LoadRate (about 1 s at
// 10,000 B/s); with loading free it has them within 50 ms.
func TestLoadRateChargesSnapshotRestore(t *testing.T) {
	free := catchUpAfterOutage(t, worldOptions{voters: 3, observers: 1, snapshotEvery: 10}, 100, 50*time.Millisecond)
	if free[0] != 100 {
		t.Fatalf("loading free: %d of 100 values 50 ms after the restart", free[0])
	}
	charged := catchUpAfterOutage(t, worldOptions{voters: 3, observers: 1, snapshotEvery: 10, loadRate: 10_000}, 100,
		800*time.Millisecond, 1300*time.Millisecond)
	if charged[0] >= 90 || charged[1] != 100 {
		t.Fatalf("at 10,000 B/s: %v values 0.8 s and 1.3 s after the restart, want under 90 (the snapshot not yet restored) and 100", charged)
	}
}

// TestLoadRateKeepsTheQuorumSafe: with loading charged, the members of a
// quorum that all restart hold nothing until they have loaded their own
// snapshot (about 5 KB: half a second at 10,000 B/s), then elect a leader
// and converge on the same values.
func TestLoadRateKeepsTheQuorumSafe(t *testing.T) {
	w := newWorld(t, 5, worldOptions{voters: 3, observers: 1, snapshotEvery: 10, loadRate: 10_000})
	w.waitLeader(10 * time.Second)
	for i := range 50 {
		w.propose(loadValue(i))
		w.run(20 * time.Millisecond)
	}
	w.run(3 * time.Second)
	all := append(w.voters, w.observers...)
	for _, id := range all {
		w.crash(id)
		w.restart(id)
	}
	w.run(200 * time.Millisecond)
	for _, id := range all {
		if got := len(w.values(id)); got != 0 {
			t.Fatalf("%v holds %d values 200 ms after its restart, before its snapshot could load", id, got)
		}
	}
	w.waitLeader(15 * time.Second)
	for i := range 10 {
		w.propose(loadValue(50 + i))
		w.run(20 * time.Millisecond)
	}
	w.run(3 * time.Second)
	w.converged(nil)
	if got := len(w.values(w.voters[0])); got != 60 {
		t.Fatalf("after the full restart %d values, want 60", got)
	}
	for _, id := range all {
		if w.host(id).r.pending != nil {
			t.Fatalf("%v still has a snapshot waiting", id)
		}
	}
	w.check()
}
