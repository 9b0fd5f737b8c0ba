package storage

import (
	"fmt"
	"reflect"
	"time"

	"kafkasim/model"
	"kafkasim/sim"
)

// idle is the dummy node that owns the disk under test: the tests drive
// the log directly and only need the kernel for its disk and its crash and
// power-loss faults.
type idle struct{}

func (idle) Start(*sim.Env)                            {}
func (idle) Receive(*sim.Env, sim.NodeID, sim.Message) {}
func (idle) Fire(*sim.Env, sim.Timer)                  {}
func (idle) Disconnected(*sim.Env, sim.NodeID)         {}

// tester is what the helpers need of a *testing.T, a *testing.B or a
// *rapid.T.
type tester interface {
	Helper()
	Fatalf(format string, args ...any)
}

// world is a one-node simulation whose disk a test opens logs on.
type world struct {
	t    tester
	sim  *sim.Sim
	disk *sim.Disk
}

func newWorld(t tester, seed uint64) *world {
	s := sim.New(sim.Config{Seed: seed, EventLimit: 1000})
	s.AddNode(0, "b0", func() sim.Node { return idle{} })
	s.Start(0)
	return &world{t: t, sim: s, disk: s.Disk(0)}
}

// crash kills the process (the page cache survives) and restarts it.
func (w *world) crash() { w.sim.Crash(0); w.sim.Start(0) }

// powerLoss cuts the power (only synced bytes and names survive, the last
// unsynced write may be torn) and restarts the node.
func (w *world) powerLoss() { w.sim.PowerLoss(0); w.sim.Start(0) }

const dir = "t-0/"

// smallSegments makes a config that rolls every few batches and never
// deletes or flushes on its own.
func smallSegments(bytes int64) Config {
	c := DefaultConfig()
	c.SegmentBytes = bytes
	c.RetentionTime = 0
	return c
}

func (w *world) open(cfg Config) (*Log, Recovery) {
	w.t.Helper()
	l, rec := Open(w.disk, dir, cfg, 0)
	checkInvariants(w.t, l)
	return l, rec
}

// batch builds a leader-stamped batch of n records at base under leader
// epoch, from an idempotent producer when pid is not NoProducerID. Values
// name their offset so that contents are easy to compare.
func batch(base model.Offset, epoch model.Epoch, pid model.ProducerID, pepoch model.Epoch, seq int32, n int, ts time.Duration) model.Batch {
	recs := make([]model.Record, n)
	for i := range recs {
		recs[i] = model.Record{Timestamp: ts, Key: "k", Value: fmt.Sprintf("v%06d", int64(base)+int64(i))}
	}
	return model.NewBatch(pid, pepoch, seq, recs...).Rebase(base, epoch)
}

// plain is a batch from a producer without idempotence.
func plain(base model.Offset, epoch model.Epoch, n int) model.Batch {
	return batch(base, epoch, model.NoProducerID, model.NoEpoch, model.NoSequence, n, 0)
}

// appendPlain appends count batches of n records under epoch at the end.
func appendPlain(l *Log, epoch model.Epoch, count, n int, now time.Duration) {
	for i := 0; i < count; i++ {
		l.Append(plain(l.LEO(), epoch, n), now)
	}
}

// values reads the whole log from the start and returns the record values.
func values(l *Log) []string {
	var out []string
	for off := l.LogStartOffset(); off < l.LEO(); {
		bs := l.Read(off, 1<<20)
		if len(bs) == 0 {
			panic(fmt.Sprintf("read at %d below end %d returned nothing", off, l.LEO()))
		}
		for _, b := range bs {
			for _, r := range b.Records {
				if r.Offset >= off {
					out = append(out, r.Value)
				}
			}
			off = b.NextOffset()
		}
	}
	return out
}

// want builds the values of offsets [from, to).
func want(from, to model.Offset) []string {
	var out []string
	for o := from; o < to; o++ {
		out = append(out, fmt.Sprintf("v%06d", int64(o)))
	}
	return out
}

// checkInvariants asserts what must hold of any log at rest: segments are
// contiguous, each batch starts where the one before ends, the in-memory
// view matches the bytes in the page cache, the epoch cache is monotonic
// and within the log, and nothing is below the log start but the segment
// holding it.
func checkInvariants(t tester, l *Log) {
	t.Helper()
	segs := l.Segments()
	if len(segs) == 0 {
		t.Fatalf("log has no segment")
	}
	if segs[len(segs)-1].Next != l.LEO() {
		t.Fatalf("active segment ends at %d, LEO %d", segs[len(segs)-1].Next, l.LEO())
	}
	if l.LogStartOffset() < segs[0].Base || l.LogStartOffset() > l.LEO() {
		t.Fatalf("log start %d outside [%d, %d]", l.LogStartOffset(), segs[0].Base, l.LEO())
	}
	if len(segs) > 1 && segs[1].Base <= l.LogStartOffset() {
		t.Fatalf("segment %v is wholly below the log start %d", segs[0], l.LogStartOffset())
	}
	for i, s := range segs {
		if i > 0 && s.Base != segs[i-1].Next {
			t.Fatalf("segment %d starts at %d, previous ends at %d", i, s.Base, segs[i-1].Next)
		}
		if !l.disk.Exists(s.Name) {
			t.Fatalf("segment file %s missing", s.Name)
		}
		data := l.disk.Read(s.Name)
		if int64(len(data)) != s.Bytes {
			t.Fatalf("segment %s: file has %d bytes, memory says %d", s.Name, len(data), s.Bytes)
		}
		got, valid, err := model.DecodeBatches(data)
		if err != nil || valid != len(data) {
			t.Fatalf("segment %s does not decode whole: %v", s.Name, err)
		}
		var mem []model.Batch
		for k := 0; k < l.segs[i].count(); k++ {
			mem = append(mem, *l.segs[i].at(k))
		}
		if !reflect.DeepEqual(normalize(got), normalize(mem)) {
			t.Fatalf("segment %s: file holds %v, memory %v", s.Name, got, mem)
		}
	}
	if n := len(l.disk.List(l.dir)); n < len(segs) {
		t.Fatalf("disk lists %d files in %s, fewer than %d segments", n, l.dir, len(segs))
	}
	es := l.Epochs().Entries()
	for i, e := range es {
		if i > 0 && (e.Epoch <= es[i-1].Epoch || e.StartOffset <= es[i-1].StartOffset) {
			t.Fatalf("epoch cache not monotonic: %v", es)
		}
		if e.StartOffset > l.LEO() {
			t.Fatalf("epoch entry %v past LEO %d", e, l.LEO())
		}
	}
	if len(es) > 0 && es[0].StartOffset < l.LogStartOffset() {
		t.Fatalf("epoch entry %v before log start %d", es[0], l.LogStartOffset())
	}
}

// normalize makes nil and empty record slices compare equal.
func normalize(bs []model.Batch) []model.Batch {
	out := make([]model.Batch, len(bs))
	for i, b := range bs {
		if len(b.Records) == 0 {
			b.Records = nil
		}
		out[i] = b
	}
	return out
}
