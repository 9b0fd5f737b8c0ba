package sim

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"time"
)

// Disk is one node's simulated disk: a flat namespace of named files.
//
// Every file has two states. The page cache holds every write and is what
// reads see; it survives a process crash, because the operating system keeps
// it. The durable state holds what was synced; a power loss throws the page
// cache away and keeps only that, except that the last unsynced write may be
// torn (a prefix of it reaches the platter). Kafka does not fsync by default,
// and that gap is where several real data-loss bugs live.
//
// The namespace (create, rename, remove) is cached the same way: it becomes
// durable with SyncDir, as on Linux where a new or renamed file survives a
// power loss only once its directory is synced, or, with a writeback delay
// set, once the change is older than the delay (the file system's journal
// commits it in the background). A truncation into synced bytes is a
// metadata change too: with a writeback delay set it survives once the
// journal has committed it (JournalCommit), without a sync.
type Disk struct {
	owner        string
	files        map[string]*file // the namespace as the page cache sees it
	folders      folderIndex      // files' names by top folder (List)
	durableNames map[string]*file // the namespace as it survives power loss
	syncLatency  time.Duration
	rand         *rand.Rand // draws torn-write lengths
	tornWrites   bool       // tear the last unsynced write on power loss
	powerEpoch   uint32     // bumps at each power loss: in-flight syncs die
	writeback    time.Duration
	now          *time.Duration // the kernel's clock, for writeback ages
	stats        DiskStats
	scratch      []byte // AppendLazy's bytes when it cannot defer them
	nsOps        []nsOp // namespace changes since the last SyncDir, oldest first
	// nsGen counts changes to files, the page cache's namespace: a
	// FileRef taken before the latest one is looked up again.
	nsGen uint64
	// cutsPending is false when no file of the page cache holds a cut the
	// journal has not committed (see commitJournal).
	cutsPending bool
}

// nsOp is one namespace change not yet made durable by SyncDir: name now
// refers to f (nil: removed).
type nsOp struct {
	name string
	f    *file
	at   time.Duration
}

func (d *Disk) recordNS(name string, f *file) {
	d.nsOps = append(d.nsOps, nsOp{name: name, f: f, at: *d.now})
	d.nsGen++
}

// FileRef remembers the file a name referred to when last resolved, so
// that a caller appending to one file again and again (a log's active
// segment, for every batch) need not look its name up each time. The zero
// value is ready to use. A FileRef must always be passed with the same
// name; any create, rename or remove on the disk, or a power loss, makes
// the next use look the name up again.
type FileRef struct {
	d   *Disk
	f   *file // nil: the name was missing
	gen uint64
}

// resolve is d.files[name], through ref.
func (d *Disk) resolve(ref *FileRef, name string) (*file, bool) {
	if ref.d == d && ref.gen == d.nsGen {
		return ref.f, ref.f != nil
	}
	f, ok := d.files[name]
	*ref = FileRef{d: d, f: f, gen: d.nsGen}
	return f, ok
}

// DiskStats counts what a node did to its disk.
type DiskStats struct {
	Writes, Syncs, BytesWritten, BytesSynced int64
}

// file is one file's two states. Because logs are mostly appended, the
// durable state is kept as a length into the page cache's bytes (durable ==
// the first durableLen bytes) until a write lands below durableLen; only
// then is the durable state copied out to durableCopy. Syncing an
// append-only file costs nothing.
//
// The page cache's bytes are kept in pages of pageBytes rather than one
// slice, so that appending to a file of many megabytes never copies what
// is already there (as a growing slice would, again and again).
type file struct {
	pages       [][]byte // every page but the last holds exactly pageBytes
	size        int      // the file's length as reads see it
	durableLen  int
	durableCopy []byte // non-nil when the durable state is not a prefix of data
	gen         uint64 // bumps on every change other than an append
	last        *pendingWrite
	appends     spanList // unsynced appends, oldest first
	// lazy are appends whose bytes are not produced yet: they end the
	// file, after the bytes in pages (see AppendLazy), with lazyTail, the
	// newest span, last. The newest span is kept here rather than in the
	// list because nearly every lazy append extends it, and the file is
	// one cache line away where the list's chunk is two or three.
	lazy     chunked[lazySpan]
	lazyTail lazySpan // src nil: none
	// wbAt is the time of the latest append whose writeback (see
	// writtenBack) is still to apply when wbPending; wbNext is when the
	// oldest unsynced append, and a few after it, will be due.
	wbAt      time.Duration
	wbPending bool
	wbNext    time.Duration
	// cuts are truncations into the durable state that the journal has
	// not committed yet, oldest first (see JournalCommit).
	cuts []pendingCut
}

// Lazy is file content whose bytes can be produced when needed: numbered
// items (a log's batches) of which AppendItems appends items from to to-1,
// in order, to dst. It must append the same bytes for an item whenever it
// is called, so an item must never change once appended. The disk compares
// sources with ==, so a Lazy must be a comparable value (a pointer).
type Lazy interface {
	AppendItems(dst []byte, from, to int) []byte
}

// lazySpan is a run of deferred appends: items from to to-1 of src, n
// bytes in all. Consecutive items of one source share a span, so that a
// log appending batch after batch keeps one span per segment, not one per
// batch for the whole run.
type lazySpan struct {
	src      Lazy
	from, to int
	n        int
}

// materialize produces the bytes of the deferred appends, in order, into
// the pages. Every access to the pages begins with it, so a file reads,
// tears and rewrites exactly as if every append had been written at once.
func (f *file) materialize() {
	if f.lazyTail.src == nil {
		return // the list is empty too: a span goes there only behind a tail
	}
	spans := f.lazy
	spans.push(f.lazyTail)
	f.lazy, f.lazyTail = chunked[lazySpan]{}, lazySpan{}
	var buf []byte
	for i := 0; i < spans.len(); i++ {
		sp := spans.at(i)
		n := 0
		for item := sp.from; item < sp.to; item++ {
			buf = sp.src.AppendItems(buf[:0], item, item+1)
			n += len(buf)
			f.appendPages(buf)
		}
		if n != sp.n {
			panic(fmt.Sprintf("sim: lazy appends produced %d bytes, announced %d", n, sp.n))
		}
	}
}

// lazySpans is the number of deferred spans, the newest included.
func (f *file) lazySpans() int {
	if f.lazyTail.src == nil {
		return 0
	}
	return f.lazy.len() + 1
}

// pageBytes is the size of a full page of a file's page-cache bytes.
const pageBytes = 64 << 10

// length is the file's length as reads see it.
func (f *file) length() int { return f.size }

// appendBytes adds p at the end of the page-cache bytes. The first page
// grows as a slice does, so that a small file stays small; later pages are
// allocated whole.
func (f *file) appendBytes(p []byte) {
	f.materialize()
	f.size += len(p)
	f.appendPages(p)
}

// appendPages adds p after the bytes in pages, leaving size alone.
func (f *file) appendPages(p []byte) {
	for len(p) > 0 {
		n := len(f.pages)
		if n == 0 || len(f.pages[n-1]) == pageBytes {
			var pg []byte
			if n > 0 {
				pg = make([]byte, 0, pageBytes)
			}
			f.pages = append(f.pages, pg)
			n++
		}
		last := f.pages[n-1]
		k := min(len(p), pageBytes-len(last))
		f.pages[n-1] = append(last, p[:k]...)
		p = p[k:]
	}
}

// appendZeros extends the page-cache bytes with n zero bytes.
func (f *file) appendZeros(n int) {
	var zeros [512]byte
	for n > 0 {
		k := min(n, len(zeros))
		f.appendBytes(zeros[:k])
		n -= k
	}
}

// readAt copies page-cache bytes from off into p and returns how many.
func (f *file) readAt(p []byte, off int) int {
	f.materialize()
	n := 0
	for n < len(p) && off < f.size {
		k := copy(p[n:], f.pages[off/pageBytes][off%pageBytes:])
		n += k
		off += k
	}
	return n
}

// writeAt overwrites page-cache bytes from off; off+len(p) must not pass
// the end.
func (f *file) writeAt(p []byte, off int) {
	f.materialize()
	for len(p) > 0 {
		k := copy(f.pages[off/pageBytes][off%pageBytes:], p)
		p = p[k:]
		off += k
	}
}

// prefix returns a copy of the first n page-cache bytes.
func (f *file) prefix(n int) []byte {
	out := make([]byte, n)
	f.readAt(out, 0)
	return out
}

// truncateTo cuts the page-cache bytes to n (at most the length).
func (f *file) truncateTo(n int) {
	f.materialize()
	keep := (n + pageBytes - 1) / pageBytes
	clear(f.pages[keep:])
	f.pages = f.pages[:keep]
	if keep > 0 {
		f.pages[keep-1] = f.pages[keep-1][:n-(keep-1)*pageBytes]
	}
	f.size = n
}

// newFile makes a file whose page cache and durable state are both data.
func newFile(data []byte) *file {
	f := &file{}
	f.appendBytes(data)
	f.durableLen = f.size
	return f
}

// appendSpan is one unsynced append: where it ends and when it was made.
type appendSpan struct {
	end int
	at  time.Duration
}

// spanList is the queue of a file's unsynced append spans.
type spanList = chunked[appendSpan]

// chunked is a queue kept in fixed-size chunks: a file that is never
// synced (Kafka's default) gathers a span per write for the whole run, and
// one slice would be copied whole every time it grew.
type chunked[T any] struct {
	chunks [][]T // every chunk but the last holds spanChunk items (the first grows to it)
	head   int   // items already dropped from chunks[0]
	// spare is a chunk dropped from the front, emptied, for the next push
	// that needs one: a file written back as it is appended to (see
	// writtenBack) drops a chunk for every one it fills, and would
	// otherwise allocate one each time, for the whole run.
	spare []T
}

// spanChunk is how many spans one chunk of a spanList holds.
const spanChunk = 1024

// firstChunk is the room a list's first chunk starts with; it grows by
// append up to spanChunk. Most files are short-lived (a checkpoint's
// temporary file takes one write and a rename), and a full chunk for each
// was most of the bytes a cluster run's checkpoints allocated.
const firstChunk = 16

func (l *chunked[T]) len() int {
	if len(l.chunks) == 0 {
		return 0
	}
	return (len(l.chunks)-1)*spanChunk + len(l.chunks[len(l.chunks)-1]) - l.head
}

// at is the i-th span from the oldest.
func (l *chunked[T]) at(i int) T {
	i += l.head
	return l.chunks[i/spanChunk][i%spanChunk]
}

func (l *chunked[T]) push(sp T) {
	n := len(l.chunks)
	if n == 0 || len(l.chunks[n-1]) == spanChunk {
		c := l.spare
		l.spare = nil
		if c == nil {
			room := spanChunk
			if n == 0 {
				room = firstChunk
			}
			c = make([]T, 0, room)
		}
		l.chunks = append(l.chunks, c)
		n++
	}
	l.chunks[n-1] = append(l.chunks[n-1], sp)
}

// dropFront removes the k oldest spans.
func (l *chunked[T]) dropFront(k int) {
	if k >= l.len() {
		l.reset()
		return
	}
	l.head += k
	if c := l.head / spanChunk; c > 0 {
		if l.spare == nil {
			l.spare = l.chunks[0][:spanChunk]
			clear(l.spare) // a chunk's items may hold pointers
			l.spare = l.spare[:0]
		}
		clear(l.chunks[:c])
		l.chunks = l.chunks[c:]
		l.head -= c * spanChunk
	}
}

// reset empties the list, keeping one chunk for reuse.
func (l *chunked[T]) reset() {
	if len(l.chunks) == 0 {
		return
	}
	first := l.chunks[0][:0]
	clear(l.chunks)
	l.chunks = append(l.chunks[:0], first)
	l.head = 0
}

// pendingWrite is the last unsynced write, the one a power loss may tear.
type pendingWrite struct {
	off  int
	data []byte
}

func newDisk(owner string, r *rand.Rand, now *time.Duration) *Disk {
	return &Disk{
		now:          now,
		owner:        owner,
		files:        map[string]*file{},
		folders:      folderIndex{},
		durableNames: map[string]*file{},
		rand:         r,
		tornWrites:   true,
	}
}

// SetSyncLatency sets how long an asynchronous sync (Env.Sync) takes.
func (d *Disk) SetSyncLatency(l time.Duration) { d.syncLatency = l }

// SetWriteback sets after how long unsynced appends are written back by
// the operating system and so survive a power loss (0: never).
func (d *Disk) SetWriteback(age time.Duration) { d.writeback = age }

// SyncLatency is the current sync latency.
func (d *Disk) SyncLatency() time.Duration { return d.syncLatency }

// SetTornWrites turns tearing of the last unsynced write on power loss on or
// off (on by default).
func (d *Disk) SetTornWrites(on bool) { d.tornWrites = on }

// Stats returns the disk's counters.
func (d *Disk) Stats() DiskStats { return d.stats }

func (d *Disk) get(name string) *file {
	f, ok := d.files[name]
	if !ok {
		panic(fmt.Sprintf("sim: disk of %s: no file %q", d.owner, name))
	}
	return f
}

// Exists reports whether the file exists in the page cache's namespace.
func (d *Disk) Exists(name string) bool {
	_, ok := d.files[name]
	return ok
}

// Create makes an empty file, or truncates an existing one to zero.
func (d *Disk) Create(name string) {
	if _, ok := d.files[name]; ok {
		d.Truncate(name, 0)
		return
	}
	f := &file{}
	d.setFile(name, f)
	d.recordNS(name, f)
}

// Size is the file's length as reads see it.
func (d *Disk) Size(name string) int64 { return int64(d.get(name).size) }

// Read returns a copy of the whole file as reads see it.
func (d *Disk) Read(name string) []byte {
	f := d.get(name)
	if f.size == 0 {
		return nil
	}
	return f.prefix(f.size)
}

// ReadAt copies up to len(p) bytes from offset off and returns how many.
func (d *Disk) ReadAt(name string, p []byte, off int64) int {
	f := d.get(name)
	if off >= int64(f.size) {
		return 0
	}
	return f.readAt(p, int(off))
}

// Append adds p at the end of the file, creating it if needed.
func (d *Disk) Append(name string, p []byte) {
	f, ok := d.files[name]
	if !ok {
		f = &file{}
		d.setFile(name, f)
		d.recordNS(name, f)
	}
	off := f.size
	f.appendBytes(p)
	if f.durableCopy != nil {
		// Only a rewritten file tears its last write (see survivor);
		// an append-only file tears from its spans, so the copy is
		// kept only when it can matter.
		f.last = &pendingWrite{off: off, data: append([]byte(nil), p...)}
	} else {
		f.last = nil
		d.writtenBack(f)
	}
	f.appends.push(appendSpan{end: f.size, at: *d.now})
	d.stats.Writes++
	d.stats.BytesWritten += int64(len(p))
}

// AppendLazy is Append of the n bytes that item of src produces. The disk
// asks src for them only when something needs the bytes (a read, a
// rewrite, a cut, the survivor of a power loss), so a log that is only
// appended to, as most are in a run, never pays for copying them. Until
// then the item must not change (see Lazy). Every other effect (sizes,
// unsynced spans, statistics, torn writes) is that of Append.
func (d *Disk) AppendLazy(name string, n int, src Lazy, item int) {
	var ref FileRef
	d.AppendLazyRef(&ref, name, n, src, item)
}

// AppendLazyRef is AppendLazy with the name resolved through ref (see
// FileRef).
func (d *Disk) AppendLazyRef(ref *FileRef, name string, n int, src Lazy, item int) {
	f, ok := d.resolve(ref, name)
	if !ok || f.durableCopy != nil {
		// A new file, or one whose last write must be kept to be torn:
		// the plain path.
		d.scratch = src.AppendItems(d.scratch[:0], item, item+1)
		if len(d.scratch) != n {
			panic(fmt.Sprintf("sim: a lazy append produced %d bytes, announced %d", len(d.scratch), n))
		}
		d.Append(name, d.scratch)
		return
	}
	f.size += n
	if last := &f.lazyTail; last.src == src && last.to == item {
		last.to++
		last.n += n
	} else {
		if last.src != nil {
			f.lazy.push(*last)
		}
		*last = lazySpan{src: src, from: item, to: item + 1, n: n}
	}
	f.last = nil
	d.writtenBack(f)
	f.appends.push(appendSpan{end: f.size, at: *d.now})
	d.stats.Writes++
	d.stats.BytesWritten += int64(n)
}

// WriteAt writes p at offset off, extending the file with zeros if needed.
func (d *Disk) WriteAt(name string, p []byte, off int64) {
	f := d.get(name)
	if int(off) == f.size {
		d.Append(name, p)
		return
	}
	d.catchUp(f)
	f.keepDurable(int(off))
	end := int(off) + len(p)
	if f.size < end {
		f.appendZeros(end - f.size)
	}
	f.writeAt(p, int(off))
	f.gen++
	f.appends.reset()
	f.last = &pendingWrite{off: int(off), data: append([]byte(nil), p...)}
	d.stats.Writes++
	d.stats.BytesWritten += int64(len(p))
}

// Truncate cuts the file to size bytes (or extends it with zeros).
func (d *Disk) Truncate(name string, size int64) {
	f := d.get(name)
	d.catchUp(f)
	f.keepDurable(int(size))
	if int(size) <= f.size {
		f.truncateTo(int(size))
	} else {
		f.appendZeros(int(size) - f.size)
	}
	f.gen++
	f.last = nil
	f.appends.reset()
	d.noteCut(f, int(size))
}

// writtenBack makes the appends older than the writeback delay durable
// now rather than at a power loss: the result is the same (they would be
// durable then too), and the span list of a file that is never synced,
// Kafka's default, stays short instead of growing for the whole run.
//
// An append calls it, and it defers the work: it notes the append's time
// and applies the writeback as of that time (catchUp) only once the
// oldest unsynced append has been due for a while, so that one pass
// retires a second's worth of spans instead of every append reading the
// oldest one. Whatever reads or changes the durable state (a sync, a
// rewrite, a cut, Durable, a power loss) catches up first, and a
// writeback applied later as of the same time gives the same state: so
// nothing can tell the deferral.
func (d *Disk) writtenBack(f *file) {
	if d.writeback <= 0 {
		return
	}
	f.wbAt, f.wbPending = *d.now, true
	if *d.now >= f.wbNext {
		d.catchUp(f)
	}
}

// writebackBatch is how long the oldest unsynced append of a file may be
// due before an append retires it with all the others due by then.
const writebackBatch = time.Second

// catchUp applies a deferred writeback (see writtenBack).
func (d *Disk) catchUp(f *file) {
	d.commitCuts(f)
	if !f.wbPending {
		return
	}
	f.wbPending = false
	k, n := 0, f.appends.len()
	for k < n && f.wbAt-f.appends.at(k).at >= d.writeback {
		f.durableLen = f.appends.at(k).end
		k++
	}
	f.appends.dropFront(k)
	f.wbNext = 0 // the next append sets it
	if f.appends.len() > 0 {
		f.wbNext = f.appends.at(0).at + d.writeback + writebackBatch
	}
}

// keepDurable copies the durable state out of data before a change at or
// after position pos could alter the durable prefix.
func (f *file) keepDurable(pos int) {
	if f.durableCopy == nil && pos < f.durableLen {
		f.durableCopy = f.prefix(f.durableLen)
	}
}

// Rename moves a file to a new name, replacing any file there: the atomic
// step of writing a checkpoint file (write temp, sync, rename, sync dir).
func (d *Disk) Rename(from, to string) {
	f := d.get(from)
	d.dropFile(from)
	d.setFile(to, f)
	d.recordNS(from, nil)
	d.recordNS(to, f)
}

// Remove deletes a file; removing a missing file does nothing.
func (d *Disk) Remove(name string) {
	if _, ok := d.files[name]; ok {
		d.dropFile(name)
		d.recordNS(name, nil)
	}
}

// Sync makes the file's current content durable at once, as a synchronous
// fsync whose latency the caller does not model. Env.Sync is the
// asynchronous form with latency.
func (d *Disk) Sync(name string) {
	f := d.get(name)
	d.syncAll(f)
}

func (d *Disk) syncAll(f *file) {
	d.catchUp(f)
	d.stats.Syncs++
	d.stats.BytesSynced += int64(f.size - f.durableLen)
	f.durableLen = f.size
	f.durableCopy = nil
	f.last = nil
	f.cuts = f.cuts[:0]
	f.appends.reset()
	d.commitJournal()
}

// completeSync finishes an asynchronous sync begun when the file had length
// upTo and generation gen. If the file was only appended to since, exactly
// the bytes written before the sync began become durable. If it was
// rewritten or truncated meanwhile, the kernel cannot tell which of the
// later changes the device had seen, and conservatively makes nothing new
// durable: the node must sync again.
func (d *Disk) completeSync(name string, upTo int64, gen uint64) {
	f, ok := d.files[name]
	if !ok || f.gen != gen || int(upTo) > f.size {
		return
	}
	d.catchUp(f)
	d.stats.Syncs++
	switch {
	case f.durableCopy != nil:
		// The file was rewritten or cut before the sync began (its
		// generation matches): the synced content replaces the old
		// durable copy, even where it is shorter.
		d.stats.BytesSynced += upTo
		f.durableLen = int(upTo)
	case int(upTo) > f.durableLen:
		d.stats.BytesSynced += upTo - int64(f.durableLen)
		f.durableLen = int(upTo)
	}
	f.durableCopy = nil
	f.cuts = f.cuts[:0] // the synced content supersedes every earlier cut
	if f.last != nil && f.last.off+len(f.last.data) <= int(upTo) {
		f.last = nil
	}
	k, n := 0, f.appends.len()
	for k < n && f.appends.at(k).end <= int(upTo) {
		k++
	}
	f.appends.dropFront(k)
}

// SyncDir makes the current namespace durable: created, renamed and removed
// files survive a power loss from now on.
//
// The durable namespace was the page cache's at the last SyncDir or power
// loss, and every change to the page cache's since is in nsOps, in order:
// replaying them brings it level, at the cost of the changes rather than
// of a copy of every name on the disk (a broker syncs its directory for
// every checkpoint it writes).
func (d *Disk) SyncDir() {
	d.commitJournal() // a directory's fsync commits the journal too
	for _, op := range d.nsOps {
		d.applyNS(op)
	}
	d.nsOps = d.nsOps[:0]
}

// applyNS makes one namespace change durable.
func (d *Disk) applyNS(op nsOp) {
	if op.f == nil {
		delete(d.durableNames, op.name)
	} else {
		d.durableNames[op.name] = op.f
	}
}

// Durable returns a copy of what would survive a power loss now, without
// a torn write: for tests and for checkers reading a disk at the end.
func (d *Disk) Durable(name string) ([]byte, bool) {
	f, ok := d.durableNames[name]
	if !ok {
		return nil, false
	}
	d.catchUp(f)
	return f.durableBytes(), true
}

// durableBytes returns a copy of the durable state.
func (f *file) durableBytes() []byte {
	if f.durableCopy != nil {
		return append([]byte(nil), f.durableCopy...)
	}
	if f.durableLen == 0 {
		return nil
	}
	return f.prefix(f.durableLen)
}

// powerLoss drops the page cache: every file reverts to what reached the
// platter and the namespace to its durable namespace (see Disk).
func (d *Disk) powerLoss() {
	// Namespace changes older than the writeback delay were committed by
	// the journal, in order.
	if d.writeback > 0 {
		for _, op := range d.nsOps {
			if *d.now-op.at < d.writeback {
				break
			}
			d.applyNS(op)
		}
	}
	d.nsOps = d.nsOps[:0]
	names := make([]string, 0, len(d.durableNames))
	for n := range d.durableNames {
		names = append(names, n)
	}
	sort.Strings(names) // the tear draws must not depend on map order
	files := make(map[string]*file, len(names))
	for _, n := range names {
		d.catchUp(d.durableNames[n])
		files[n] = d.survivor(d.durableNames[n])
	}
	d.files = files
	d.indexFiles()
	d.cutsPending = true // survivors may keep cuts the journal has not committed
	d.nsGen++
	d.durableNames = make(map[string]*file, len(files))
	for n, f := range files {
		d.durableNames[n] = f
	}
}

// survivor computes what of one file reaches the platter at a power loss.
func (d *Disk) survivor(f *file) *file {
	if n := f.appends.len(); f.durableCopy == nil && n > 0 {
		// Append-only since the last sync: written back in order.
		keep := f.durableLen
		i := 0
		for ; i < n; i++ {
			if d.writeback <= 0 || *d.now-f.appends.at(i).at < d.writeback {
				break
			}
			keep = f.appends.at(i).end
		}
		if i < n && d.tornWrites {
			keep += d.rand.IntN(f.appends.at(i).end - keep + 1)
		}
		return newFile(f.prefix(keep))
	}
	data := f.durableBytes()
	if w := f.last; d.tornWrites && w != nil && w.off <= len(data) && len(w.data) > 0 {
		if keep := d.rand.IntN(len(w.data) + 1); keep > 0 {
			end := w.off + keep
			for len(data) < end {
				data = append(data, 0)
			}
			copy(data[w.off:end], w.data[:keep])
		}
	}
	return newFile(data)
}
