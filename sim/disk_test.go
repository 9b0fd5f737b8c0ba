package sim

import (
	"math/rand/v2"
	"testing"
	"time"
)

var diskTestNow time.Duration

func newTestDisk() *Disk {
	return newDisk("d", NewStreams(1).Stream("disk"), &diskTestNow)
}

func TestProcessCrashKeepsPageCachePowerLossKeepsSynced(t *testing.T) {
	s, _ := world(t, 1, LinkConfig{}, plain)
	d := s.Disk(0)
	d.Append("log", []byte("synced|"))
	d.Sync("log")
	d.SyncDir()
	d.Append("log", []byte("cached"))
	d.SetTornWrites(false)

	s.Crash(0)
	if got := string(d.Read("log")); got != "synced|cached" {
		t.Fatalf("after process crash read %q, want the page cache %q", got, "synced|cached")
	}
	s.Start(0)
	s.PowerLoss(0)
	if got := string(d.Read("log")); got != "synced|" {
		t.Fatalf("after power loss read %q, want only synced bytes", got)
	}
}

func TestPowerLossMayTearTheFirstUnwrittenAppend(t *testing.T) {
	torn, none := 0, 0
	for seed := uint64(1); seed <= 200; seed++ {
		d := newDisk("d", NewStreams(seed).Stream("disk"), &diskTestNow)
		d.Append("f", []byte("aaaa"))
		d.Sync("f")
		d.SyncDir()
		d.Append("f", []byte("bbbb"))
		d.Append("f", []byte("cccc"))
		d.powerLoss()
		got := string(d.Read("f"))
		switch {
		case got == "aaaa":
			none++
		case len(got) > 4 && len(got) <= 8 && got[4:] == "bbbb"[:len(got)-4]:
			torn++
		default:
			// Appends reach the platter in order: "cccc" can never
			// survive without all of "bbbb" before it, and without a
			// writeback delay nothing past the first append does.
			t.Fatalf("seed %d: power loss left %q", seed, got)
		}
	}
	if torn == 0 || none == 0 {
		t.Fatalf("torn %d, none %d: want both torn and fully lost tails over 200 seeds", torn, none)
	}
}

func TestWritebackMakesOldAppendsDurable(t *testing.T) {
	s, _ := world(t, 1, LinkConfig{}, plain)
	d := s.Disk(0)
	d.SetWriteback(30 * time.Second)
	d.SetTornWrites(false)
	s.At(0, "old", func() { d.Append("f", []byte("old|")); d.SyncDir() })
	s.At(20*time.Second, "new", func() { d.Append("f", []byte("new")) })
	s.At(40*time.Second, "power", func() { s.PowerLoss(0) })
	s.Run(time.Minute)
	if got := string(d.Read("f")); got != "old|" {
		t.Fatalf("after power loss at 40s: %q, want the append older than 30s only", got)
	}
}

func TestRenameNeedsDirSyncToSurvivePowerLoss(t *testing.T) {
	d := newTestDisk()
	d.Append("ckpt", []byte("v1"))
	d.Sync("ckpt")
	d.SyncDir()
	// Write a new version to a temp file, sync it, rename over the old.
	d.Create("ckpt.tmp")
	d.Append("ckpt.tmp", []byte("v2"))
	d.Sync("ckpt.tmp")
	d.Rename("ckpt.tmp", "ckpt")
	if got := string(d.Read("ckpt")); got != "v2" {
		t.Fatalf("read %q after rename, want v2", got)
	}
	d.powerLoss()
	if got := string(d.Read("ckpt")); got != "v1" {
		t.Fatalf("without SyncDir the rename must not survive power loss: read %q", got)
	}
	if d.Exists("ckpt.tmp") {
		t.Fatal("unsynced create survived power loss")
	}
	d.Create("ckpt.tmp")
	d.Append("ckpt.tmp", []byte("v3"))
	d.Sync("ckpt.tmp")
	d.Rename("ckpt.tmp", "ckpt")
	d.SyncDir()
	d.powerLoss()
	if got := string(d.Read("ckpt")); got != "v3" {
		t.Fatalf("after sync, rename, dir sync: read %q, want v3", got)
	}
}

func TestWriteAtAndTruncateKeepDurableState(t *testing.T) {
	d := newTestDisk()
	d.SetTornWrites(false)
	d.Append("f", []byte("0123456789"))
	d.Sync("f")
	d.SyncDir()
	d.WriteAt("f", []byte("xx"), 2)
	d.Truncate("f", 6)
	if got := string(d.Read("f")); got != "01xx45" {
		t.Fatalf("page cache %q", got)
	}
	if got, _ := d.Durable("f"); string(got) != "0123456789" {
		t.Fatalf("durable %q, want the synced content untouched", got)
	}
	d.powerLoss()
	if got := string(d.Read("f")); got != "0123456789" {
		t.Fatalf("after power loss %q", got)
	}
	buf := make([]byte, 4)
	if n := d.ReadAt("f", buf, 8); n != 2 || string(buf[:n]) != "89" {
		t.Fatalf("ReadAt read %q", buf[:n])
	}
}

// syncer writes a record, starts an asynchronous sync, and logs completion.
func TestAsyncSyncLatencyAndPowerLossBeforeCompletion(t *testing.T) {
	for _, tc := range []struct {
		name        string
		lossAt      time.Duration
		wantDurable string
		wantFire    bool
	}{
		{"completes", 100 * ms, "rec", true},
		{"power lost first", 5 * ms, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, log := world(t, 1, LinkConfig{}, func(NodeID) *probe {
				return &probe{}
			})
			d := s.Disk(0)
			d.SetSyncLatency(10 * ms)
			d.SetTornWrites(false)
			s.At(0, "write", func() {
				env := s.nodes[0].env
				env.Disk().Append("f", []byte("rec"))
				env.Disk().SyncDir()
				env.Sync("f", "synced", 1)
			})
			s.At(tc.lossAt, "power", func() { s.PowerLoss(0) })
			s.Run(time.Second)
			got, _ := d.Durable("f")
			if string(got) != tc.wantDurable {
				t.Fatalf("durable %q, want %q", got, tc.wantDurable)
			}
			if contains(*log, "10ms n0 fire synced(1)") != tc.wantFire {
				t.Fatalf("completion callback: log\n%s", join(*log))
			}
		})
	}
}

func TestAsyncSyncCompletesForACrashedProcess(t *testing.T) {
	// The device finishes an fsync even if the process died after asking.
	s, _ := world(t, 1, LinkConfig{}, plain)
	d := s.Disk(0)
	d.SetSyncLatency(10 * ms)
	s.At(0, "write", func() {
		env := s.nodes[0].env
		env.Disk().Append("f", []byte("rec"))
		env.Disk().SyncDir()
		env.Sync("f", "synced", 1)
	})
	s.At(5*ms, "crash", func() { s.Crash(0) })
	s.Run(time.Second)
	if got, _ := d.Durable("f"); string(got) != "rec" {
		t.Fatalf("durable %q after a process crash mid-sync, want rec", got)
	}
}

func TestListIsSorted(t *testing.T) {
	d := newTestDisk()
	for _, n := range []string{"t-0/00002.log", "t-0/00001.log", "other", "t-0/00003.log"} {
		d.Create(n)
	}
	got := d.List("t-0/")
	want := []string{"t-0/00001.log", "t-0/00002.log", "t-0/00003.log"}
	if len(got) != 3 || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Fatalf("List = %v", got)
	}
	d.Remove("t-0/00002.log")
	if len(d.List("t-0/")) != 2 {
		t.Fatal("Remove did not remove")
	}
}

func TestWritebackCommitsOldNamespaceChanges(t *testing.T) {
	s, _ := world(t, 1, LinkConfig{}, plain)
	d := s.Disk(0)
	d.SetWriteback(30 * time.Second)
	d.SetTornWrites(false)
	s.At(0, "old", func() { d.Append("old", []byte("a")) })
	s.At(20*time.Second, "new", func() { d.Append("new", []byte("b")) })
	s.At(40*time.Second, "power", func() { s.PowerLoss(0) })
	s.Run(time.Minute)
	if !d.Exists("old") || string(d.Read("old")) != "a" {
		t.Fatal("a file created more than the writeback delay before the power loss must survive")
	}
	if d.Exists("new") {
		t.Fatal("a file created within the writeback delay must not survive without SyncDir")
	}
}

// TestPagedFileMatchesFlatBytes drives a file across many page boundaries
// with random appends, overwrites, truncations and extensions, and checks
// every read against a plain byte slice doing the same.
func TestPagedFileMatchesFlatBytes(t *testing.T) {
	r := NewStreams(7).Stream("paged")
	d := newTestDisk()
	var want []byte
	chunk := func(n int) []byte {
		p := make([]byte, n)
		for i := range p {
			p[i] = byte(r.IntN(256))
		}
		return p
	}
	d.Create("f")
	for step := 0; step < 400; step++ {
		switch op := r.IntN(10); {
		case op < 5: // append, often larger than a page
			p := chunk(r.IntN(3 * pageBytes / 2))
			d.Append("f", p)
			want = append(want, p...)
		case op < 7: // overwrite, possibly past the end
			off := r.IntN(len(want) + 10)
			p := chunk(r.IntN(pageBytes + 10))
			d.WriteAt("f", p, int64(off))
			for len(want) < off+len(p) {
				want = append(want, 0)
			}
			copy(want[off:], p)
		case op < 9: // truncate, usually shorter
			n := r.IntN(len(want) + pageBytes/2)
			d.Truncate("f", int64(n))
			if n <= len(want) {
				want = want[:n]
			} else {
				want = append(want, make([]byte, n-len(want))...)
			}
		default:
			d.Sync("f")
		}
		if got := d.Size("f"); got != int64(len(want)) {
			t.Fatalf("step %d: size %d, want %d", step, got, len(want))
		}
		if got := d.Read("f"); string(got) != string(want) {
			t.Fatalf("step %d: read differs from the flat model (len %d vs %d)", step, len(got), len(want))
		}
		if len(want) > 0 {
			off := r.IntN(len(want))
			buf := make([]byte, r.IntN(2*pageBytes)+1)
			n := d.ReadAt("f", buf, int64(off))
			if exp := min(len(buf), len(want)-off); n != exp || string(buf[:n]) != string(want[off:off+n]) {
				t.Fatalf("step %d: ReadAt(%d) read %d bytes, want %d", step, off, n, exp)
			}
		}
	}
	d.Sync("f")
	d.SyncDir()
	d.powerLoss()
	if got := d.Read("f"); string(got) != string(want) {
		t.Fatal("a synced multi-page file changed at power loss")
	}
}

// spanList behaves as the slice it replaces under pushes, drops from the
// front (across chunk boundaries) and resets.
func TestSpanListMatchesSlice(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var l spanList
	var want []appendSpan
	next := 0
	longest := 0
	for step := 0; step < 40000; step++ {
		longest = max(longest, len(want))
		switch x := r.IntN(10000); {
		case x < 9500:
			next++
			sp := appendSpan{end: next, at: time.Duration(step)}
			l.push(sp)
			want = append(want, sp)
		case x < 9999:
			k := r.IntN(30)
			l.dropFront(k)
			want = want[min(k, len(want)):]
		default:
			l.reset()
			want = nil
		}
		if l.len() != len(want) {
			t.Fatalf("step %d: len %d, want %d", step, l.len(), len(want))
		}
		for _, i := range []int{0, len(want) / 2, len(want) - 1} {
			if i >= 0 && i < len(want) && l.at(i) != want[i] {
				t.Fatalf("step %d: at(%d) = %v, want %v", step, i, l.at(i), want[i])
			}
		}
	}
	if longest < 2*spanChunk {
		t.Fatalf("the list never grew past %d spans: chunk boundaries untested", longest)
	}
}

// lazyItems is a Lazy over a growing list of byte strings; it counts how
// many items it produced.
type lazyItems struct {
	items [][]byte
	calls int
}

func (l *lazyItems) AppendItems(dst []byte, from, to int) []byte {
	for _, p := range l.items[from:to] {
		l.calls++
		dst = append(dst, p...)
	}
	return dst
}

// add appends p to the list and returns its item number.
func (l *lazyItems) add(p []byte) int {
	l.items = append(l.items, p)
	return len(l.items) - 1
}

// TestAppendLazyMatchesAppend drives two disks with one sequence of
// operations, one appending with Append and the other with AppendLazy, and
// checks that reads, durable states, torn power losses and statistics
// never tell them apart, and that an append-only stretch produces nothing.
func TestAppendLazyMatchesAppend(t *testing.T) {
	for _, wb := range []time.Duration{0, 3} {
		r := NewStreams(11).Stream("lazy")
		var now time.Duration
		eager := newDisk("d", NewStreams(1).Stream("disk"), &now)
		lazy := newDisk("d", NewStreams(1).Stream("disk"), &now)
		src, other := &lazyItems{}, &lazyItems{}
		for _, d := range []*Disk{eager, lazy} {
			d.SetTornWrites(true)
			d.SetWriteback(wb)
			d.Create("f")
			d.SyncDir()
		}
		chunk := func(n int) []byte {
			p := make([]byte, n)
			for i := range p {
				p[i] = byte(r.IntN(256))
			}
			return p
		}
		for step := 0; step < 3000; step++ {
			now++
			op := r.IntN(100)
			switch {
			case op < 65:
				p := chunk(r.IntN(300))
				eager.Append("f", p)
				lazy.AppendLazy("f", len(p), src, src.add(p))
			case op < 70:
				// Another source, or a skipped item, starts a new span.
				p := chunk(r.IntN(300))
				eager.Append("f", p)
				if r.IntN(2) == 0 {
					lazy.AppendLazy("f", len(p), other, other.add(p))
				} else {
					src.add(nil)
					lazy.AppendLazy("f", len(p), src, src.add(p))
				}
			case op < 75:
				off, p := int64(r.IntN(int(eager.Size("f"))+5)), chunk(r.IntN(50))
				eager.WriteAt("f", p, off)
				lazy.WriteAt("f", p, off)
			case op < 80:
				n := int64(r.IntN(int(eager.Size("f")) + 5))
				eager.Truncate("f", n)
				lazy.Truncate("f", n)
			case op < 85:
				eager.Sync("f")
				lazy.Sync("f")
			case op < 90:
				eager.powerLoss()
				lazy.powerLoss()
			case op < 95:
				e, _ := eager.Durable("f")
				l, _ := lazy.Durable("f")
				if string(e) != string(l) {
					t.Fatalf("writeback %v step %d: durable states differ", wb, step)
				}
			default:
				if string(eager.Read("f")) != string(lazy.Read("f")) {
					t.Fatalf("writeback %v step %d: reads differ", wb, step)
				}
			}
			if eager.Size("f") != lazy.Size("f") || eager.Stats() != lazy.Stats() {
				t.Fatalf("writeback %v step %d: size %d vs %d, stats %+v vs %+v", wb, step,
					eager.Size("f"), lazy.Size("f"), eager.Stats(), lazy.Stats())
			}
		}
		if string(eager.Read("f")) != string(lazy.Read("f")) {
			t.Fatalf("writeback %v: final reads differ", wb)
		}
		before := src.calls
		for i := 0; i < 100; i++ {
			lazy.AppendLazy("f", 3, src, src.add([]byte("abc")))
		}
		if src.calls != before {
			t.Fatalf("appends alone produced bytes %d times", src.calls-before)
		}
		if n := lazy.files["f"].lazySpans(); n != 1 {
			t.Fatalf("100 consecutive items of one source kept %d spans, want 1", n)
		}
		if got := lazy.Read("f"); len(got) < 300 || string(got[len(got)-3:]) != "abc" || src.calls != before+100 {
			t.Fatalf("a read after lazy appends: %d bytes, %d productions", len(got), src.calls-before)
		}
	}
}

// TestAsyncSyncAfterTruncateBelowTheDurablePoint: a file cut below what was
// synced, then synced asynchronously, must be durable at its new length;
// an append after it and a power loss keep the synced prefix and may tear
// only the append.
func TestAsyncSyncAfterTruncateBelowTheDurablePoint(t *testing.T) {
	for seed := uint64(1); seed <= 50; seed++ {
		s := New(Config{Seed: seed})
		s.AddNode(0, "n", func() Node { return &probe{log: &[]string{}} })
		s.Start(0)
		d := s.Disk(0)
		env := s.nodes[0].env
		d.Append("f", []byte("0123456789"))
		d.Sync("f")
		d.SyncDir()
		d.Truncate("f", 4)
		env.Sync("f", "synced", 0)
		s.Run(time.Millisecond)
		if got, _ := d.Durable("f"); string(got) != "0123" {
			t.Fatalf("seed %d: durable %q after the sync of the cut file, want 0123", seed, got)
		}
		d.Append("f", []byte("abc"))
		s.PowerLoss(0)
		got := string(d.Read("f"))
		if len(got) < 4 || got[:4] != "0123" || len(got) > 7 || got[4:] != "abc"[:len(got)-4] {
			t.Fatalf("seed %d: after power loss %q, want 0123 and a prefix of abc", seed, got)
		}
	}
}

// A span list that drops from the front as fast as it grows, as a file
// written back while it is appended to does, reuses the chunks it drops
// rather than allocating a new one every spanChunk appends.
func TestSpanListReusesDroppedChunks(t *testing.T) {
	var l spanList
	for i := 0; i < 4*spanChunk; i++ {
		l.push(appendSpan{end: i})
	}
	next := 4 * spanChunk
	allocs := testing.AllocsPerRun(20, func() {
		for i := 0; i < spanChunk; i++ {
			l.push(appendSpan{end: next})
			next++
			l.dropFront(1)
		}
	})
	if allocs >= 1 {
		t.Fatalf("%.0f allocations per %d appends and drops", allocs, spanChunk)
	}
	if l.len() != 4*spanChunk || l.at(0).end != next-4*spanChunk || l.at(l.len()-1).end != next-1 {
		t.Fatalf("list of %d spans from %d to %d, want %d from %d", l.len(), l.at(0).end, l.at(l.len()-1).end, 4*spanChunk, next-4*spanChunk)
	}
}

// A FileRef follows its name through every change of the namespace: after
// a rename, a remove and a re-create, or a power loss, appends through it
// go to the file the name now denotes, as appends by name do.
func TestFileRefFollowsTheName(t *testing.T) {
	now := time.Duration(0)
	byRef := newDisk("d", NewStreams(1).Stream("disk"), &now)
	byName := newDisk("d", NewStreams(1).Stream("disk"), &now)
	var ref FileRef
	src := &lazyItems{}
	step := 0
	both := func(f func(d *Disk)) { f(byRef); f(byName) }
	appendBoth := func(p string) {
		item := src.add([]byte(p))
		byRef.AppendLazyRef(&ref, "f", len(p), src, item)
		byName.AppendLazy("f", len(p), src, item)
		step++
		for _, name := range []string{"f", "g"} {
			if a, b := byRef.Exists(name), byName.Exists(name); a != b || a && string(byRef.Read(name)) != string(byName.Read(name)) {
				t.Fatalf("step %d: %s differs: %q vs %q", step, name, byRef.Read(name), byName.Read(name))
			}
		}
	}
	both(func(d *Disk) { d.Create("f"); d.SyncDir() })
	appendBoth("a")
	appendBoth("b")
	both(func(d *Disk) { d.Rename("f", "g") })
	appendBoth("c") // a new f, not g
	both(func(d *Disk) { d.Remove("f") })
	appendBoth("d")
	both(func(d *Disk) { d.SyncDir(); d.Sync("f"); d.Sync("g") })
	appendBoth("e")
	both(func(d *Disk) { d.SetTornWrites(false); d.powerLoss() })
	appendBoth("f")
	if got := string(byRef.Read("f")); got != "df" {
		t.Fatalf("f holds %q, want \"df\"", got)
	}
	if got := string(byRef.Read("g")); got != "ab" {
		t.Fatalf("g holds %q, want \"ab\"", got)
	}
}

// Deferring the writeback (see writtenBack) cannot be told from applying
// it at every append, as the disk did before: two disks take the same
// random appends, rewrites, cuts, syncs and power losses, one of them
// written back right after each append by the test itself, and must agree
// on content, durable state and statistics throughout.
func TestDeferredWritebackMatchesEager(t *testing.T) {
	const writeback = 3 * time.Second
	// eagerWriteback is the writeback as every append applied it before
	// (an append to a rewritten file left it alone).
	eagerWriteback := func(d *Disk, f *file) {
		if f.durableCopy != nil {
			return
		}
		k, n := 0, f.appends.len()
		for k < n && *d.now-f.appends.at(k).at >= writeback {
			f.durableLen = f.appends.at(k).end
			k++
		}
		f.appends.dropFront(k)
		f.wbPending = false
	}
	for seed := uint64(1); seed <= 8; seed++ {
		r := NewStreams(seed).Stream("wb")
		var now time.Duration
		eager := newDisk("d", NewStreams(seed).Stream("disk"), &now)
		lazy := newDisk("d", NewStreams(seed).Stream("disk"), &now)
		for _, d := range []*Disk{eager, lazy} {
			d.SetWriteback(writeback)
			d.Create("f")
			d.SyncDir()
		}
		deferred := 0
		for step := 0; step < 3000; step++ {
			now += time.Duration(r.IntN(400)) * time.Millisecond
			p := make([]byte, 1+r.IntN(40))
			for i := range p {
				p[i] = byte(r.IntN(256))
			}
			switch op := r.IntN(100); {
			case op < 80:
				eager.Append("f", p)
				eagerWriteback(eager, eager.files["f"])
				lazy.Append("f", p)
			case op < 85:
				off := int64(r.IntN(int(eager.Size("f")) + 1))
				eager.WriteAt("f", p, off)
				lazy.WriteAt("f", p, off)
			case op < 90:
				n := int64(r.IntN(int(eager.Size("f")) + 1))
				eager.Truncate("f", n)
				lazy.Truncate("f", n)
			case op < 94:
				eager.Sync("f")
				lazy.Sync("f")
			case op < 95:
				e, _ := eager.Durable("f")
				l, _ := lazy.Durable("f")
				if string(e) != string(l) {
					t.Fatalf("seed %d step %d: durable states differ", seed, step)
				}
			default:
				eager.powerLoss()
				lazy.powerLoss()
			}
			if f := lazy.files["f"]; f != nil && f.wbPending && f.appends.len() > 0 && now-f.appends.at(0).at >= writeback {
				deferred++ // something due is still waiting
			}
			if string(eager.Read("f")) != string(lazy.Read("f")) || eager.Stats() != lazy.Stats() {
				t.Fatalf("seed %d step %d: contents or stats differ: %+v vs %+v", seed, step, eager.Stats(), lazy.Stats())
			}
		}
		if deferred == 0 {
			t.Fatalf("seed %d: no due writeback was ever deferred", seed)
		}
	}
}

// A list's first chunk starts small and grows to a full one, and the items
// stay where at finds them as it grows and as later chunks follow.
func TestSpanListFirstChunkStartsSmall(t *testing.T) {
	var l spanList
	l.push(appendSpan{end: 0})
	if c := cap(l.chunks[0]); c != firstChunk {
		t.Fatalf("first chunk has room for %d spans, want %d", c, firstChunk)
	}
	for i := 1; i < 3*spanChunk+5; i++ {
		l.push(appendSpan{end: i})
	}
	if len(l.chunks) != 4 || len(l.chunks[0]) != spanChunk {
		t.Fatalf("%d chunks, the first holding %d, want 4 with %d in the first", len(l.chunks), len(l.chunks[0]), spanChunk)
	}
	for i := 0; i < l.len(); i++ {
		if l.at(i).end != i {
			t.Fatalf("at(%d) = %d", i, l.at(i).end)
		}
	}
}
