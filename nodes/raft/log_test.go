package raft

import (
	"reflect"
	"testing"

	"kafkasim/model"
	"kafkasim/sim"
)

// scratchDisk returns a disk of a node that is never started.
func scratchDisk() *sim.Disk {
	s := sim.New(sim.Config{Seed: 1})
	s.AddNode(1, "scratch", func() sim.Node { return &host{} })
	return s.Disk(1)
}

func sampleBatches() []model.QuorumBatch {
	return []model.QuorumBatch{
		{BaseOffset: 1, Epoch: 1, Control: true, Entries: [][]byte{{1}}},
		{BaseOffset: 2, Epoch: 1, Entries: [][]byte{[]byte("a"), []byte("bc")}},
		{BaseOffset: 4, Epoch: 3, Control: true, Entries: [][]byte{{2}}},
		{BaseOffset: 5, Epoch: 3, Entries: [][]byte{[]byte("def"), nil, []byte("g")}},
	}
}

// TestLogRecoversEveryPrefix cuts the log file at every byte, as a power
// loss can tear an unsynced write, and requires recovery to keep exactly
// the whole batches before the cut, cut the file back to them, and go on
// appending after them.
func TestLogRecoversEveryPrefix(t *testing.T) {
	disk := scratchDisk()
	l := openLog(disk, "log", 0, 0)
	if _, ok := disk.Durable("log"); !ok {
		t.Fatalf("a new log's name is not durable")
	}
	var ends []int64
	for _, b := range sampleBatches() {
		l.append(b)
		ends = append(ends, disk.Size("log"))
	}
	if durable, _ := disk.Durable("log"); int64(len(durable)) != ends[len(ends)-1] {
		t.Fatalf("appended batches are not synced")
	}
	data := disk.Read("log")
	for n := 0; n <= len(data); n++ {
		disk.Create("log")
		disk.Append("log", data[:n])
		l := openLog(disk, "log", 0, 0)
		whole, good := 0, int64(0)
		for i, end := range ends {
			if end <= int64(n) {
				whole, good = i+1, end
			}
		}
		if len(l.batches) != whole || disk.Size("log") != good || l.size != good {
			t.Fatalf("prefix %d: %d batches, file %d; want %d, %d", n, len(l.batches), disk.Size("log"), whole, good)
		}
		if !reflect.DeepEqual(l.batches, sampleBatches()[:whole]) && whole > 0 {
			t.Fatalf("prefix %d: batches %v", n, l.batches)
		}
		next := model.QuorumBatch{BaseOffset: l.lastOffset() + 1, Epoch: 4, Entries: [][]byte{[]byte("z")}}
		l.append(next)
		if again := openLog(disk, "log", 0, 0); again.lastOffset() != next.BaseOffset {
			t.Fatalf("prefix %d: an append after recovery reads back to %d", n, again.lastOffset())
		}
	}
	// A corrupt frame ends the log.
	disk.Create("log")
	f := encodeFrame(&sampleBatches()[0])
	f[len(f)-1] ^= 1
	disk.Append("log", f)
	if l := openLog(disk, "log", 0, 0); len(l.batches) != 0 {
		t.Fatalf("a corrupt frame was read")
	}
}

// TestLogEpochsAndTruncation: endOffsetFor answers Kafka's question
// (largest epoch at or below, and where it ends), truncation can cut a
// batch in two, and a snapshot start hides what it covers.
func TestLogEpochsAndTruncation(t *testing.T) {
	disk := scratchDisk()
	l := openLog(disk, "log", 0, 0)
	for _, b := range sampleBatches() {
		l.append(b)
	}
	for _, c := range []struct {
		ask        model.Epoch
		epoch      model.Epoch
		end        int64
		answerable bool
	}{{0, 0, 0, true}, {1, 1, 3, true}, {2, 1, 3, true}, {3, 3, 7, true}, {9, 3, 7, true}} {
		e, end, ok := l.endOffsetFor(c.ask)
		if e != c.epoch || end != c.end || ok != c.answerable {
			t.Errorf("endOffsetFor(%d) = %d, %d, %v; want %d, %d, %v", c.ask, e, end, ok, c.epoch, c.end, c.answerable)
		}
	}
	l.truncateAfter(5)
	if l.lastOffset() != 5 || l.lastEpoch() != 3 {
		t.Fatalf("after truncating to 5: last %d@%d", l.lastOffset(), l.lastEpoch())
	}
	if again := openLog(disk, "log", 0, 0); again.lastOffset() != 5 {
		t.Fatalf("the cut batch reads back to %d", again.lastOffset())
	}
	l.dropBefore(3, 1)
	if l.startOffset() != 4 || l.lastOffset() != 5 {
		t.Fatalf("after a snapshot at 3: log %d..%d", l.startOffset(), l.lastOffset())
	}
	if _, _, ok := l.endOffsetFor(0); ok {
		t.Fatalf("an epoch below the snapshot's was answered from the log")
	}
	if e, end, ok := l.endOffsetFor(2); !ok || e != 1 || end != 3 {
		t.Fatalf("endOffsetFor(2) after the snapshot = %d, %d, %v; want the snapshot's 1, 3", e, end, ok)
	}
	if again := openLog(disk, "log", 3, 1); again.startOffset() != 4 || again.lastOffset() != 5 {
		t.Fatalf("reopened after the snapshot: %d..%d", again.startOffset(), again.lastOffset())
	}
}
