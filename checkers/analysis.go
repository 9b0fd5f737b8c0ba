package checkers

import (
	"cmp"
	"hash/maphash"
	"math"
	"slices"
	"sort"
	"time"

	"kafkasim/model"
)

// analysis is the index every history checker shares, built in three
// linear passes: for each partition, what was seen at each offset (by
// sends known to have committed and by every poll); for each record, who
// wrote it, who first read it and where it was seen. Jepsen calls the
// sorted observed offsets of a partition its version order; a position in
// it is an "index" (offsets minus the gaps no one observed, such as
// transaction markers).
//
// A record is a (partition, value) pair: Jepsen's generators make values
// unique per key (our partition) only, so the same value in two
// partitions is two records (kafka.clj keys every index by [k v]).
type analysis struct {
	h     model.History
	parts []*partition // in partition order
	byTP  map[model.TopicPartition]*partition
	vals  []valueInfo // every record; partition.ids indexes them
	// names is each record's value, by id (as vals).
	names []string
	// seed hashes the values in every partition's ids.
	seed maphash.Seed
	// entries sum up each history entry (entries.go), and polledRecs
	// hold the records of every poll, in history order. An entry is
	// committed when its operation must have taken effect, as kafka.clj's
	// must-have-committed? decides: it is ok, or indeterminate and a poll
	// of an ok operation returned a value one of its sends wrote.
	entries    []entry
	polledRecs []polledRecord
	// untargeted: sends whose partition was never learned (a keyed send
	// that did not complete), by value; a read of the value in a
	// partition no targeted send wrote is taken as theirs.
	untargeted map[string]*untargetedSend
	// polled is how many records the polls returned, all told.
	polled int
	// others are the entries that are neither sends nor polls (assigns,
	// rebalances, commits, seeks, ...), few in any history: the checks
	// of those kinds look here first whether the history has any.
	others []int32
	// sentTo: value → the first send of it, for explaining a phantom read
	// in the wrong partition; built only when a phantom is found.
	sentTo map[string]int32
	// hasTxn: some entry has a Txn (the transactional analyses run only
	// then).
	hasTxn bool
	// numbered finds partitions by number when they are of one topic.
	numbered numberedParts
	// procs is what summarize learned of the processes, for byProcess.
	procs procSummary
	// touched sums the table slots addWriters read ahead, so that the
	// reads are not optimised away; it means nothing.
	touched uint32
}

// procSummary is each process's entries counted, and whether they
// complete in history order, by process number; valid only while small
// holds (every process number below smallProcs).
type procSummary struct {
	small      bool
	count      []int32
	endOrdered []bool
	lastEnd    []time.Duration
}

// smallProcs bounds the process numbers procSummary counts by number:
// Jepsen's grow by the concurrency each time a client crashes, so a few
// times the history's length is far more than any history has. Above
// it, byProcess groups the entries with a map.
func smallProcs(n int) int { return min(4*n+64, math.MaxInt32) }

// add counts entry op of process p.
func (s *procSummary) add(p int, op *model.Op, limit int) {
	if !s.small || p >= limit {
		s.small = false
		return
	}
	for len(s.count) <= p {
		s.count = append(s.count, 0)
		s.endOrdered = append(s.endOrdered, true)
		s.lastEnd = append(s.lastEnd, math.MinInt64)
	}
	end := completion(op)
	s.count[p]++
	s.endOrdered[p] = s.endOrdered[p] && end >= s.lastEnd[p]
	s.lastEnd[p] = end
}

// valueKey is a record's identity.
type valueKey struct {
	tp    model.TopicPartition
	value string
}

type untargetedSend struct {
	op int32
	id int32 // the record it was read as; -1 while unread
}

// partition is what the history says about one partition.
type partition struct {
	tp    model.TopicPartition
	order int // its place in analysis.parts, once analyze has sorted them
	// seq: while analyze runs, its index in analysis.parts when its
	// records were made (what valueInfo.part
	// holds until the sort); then equal to order.
	seq int32
	// at is the first value seen at each offset and the op that saw it.
	at sightings
	// conflicts holds further, different values seen at an offset.
	conflicts map[model.Offset][]sighting
	// offsets is the version order: every observed offset, ascending.
	offsets []model.Offset
	// resets are the offset ranges [from, to) that position resets jumped
	// over, merged and sorted: records there may legitimately go unread.
	resets []span
	// ids: value → its record's index into analysis.vals (recordids.go).
	// One table per partition rather than one keyed by (partition,
	// value): smaller keys and smaller tables, which the million-op
	// benchmark needs.
	ids recordIDs
	// sentAt, while analyze runs: the record the first send acknowledged
	// at each offset wrote (-1 for none), so that a poll returning the
	// same value at that offset finds its record without hashing the
	// value. Dropped once the index is built.
	sentAt []int32
}

type sighting struct {
	value string
	op    int32
	// id is the record (partition, value) seen, an index into
	// analysis.vals, so that no check has to find it by value again.
	id int32
}

type span struct{ from, to model.Offset }

// valueInfo is what the history says about one record.
type valueInfo struct {
	// part is its partition's index into analysis.parts. An index, not a
	// pointer, so that vals holds no pointers and the garbage collector
	// never scans its million-odd records.
	part     int32
	writer   int32 // the first send carrying it; -1 if none
	reader   int32 // the first poll (of any outcome) that returned it; -1 if none
	okReader int32 // the first poll of an ok operation that returned it; -1 if none
	// lowest and highest offset it was seen at in the version order;
	// NoOffset when it is in none.
	first, last model.Offset
}

// multi reports whether the record was seen at more than one offset: its
// lowest and highest differ exactly then. (A flag would make the record
// eight bytes longer, and there are a million of them.)
func (v *valueInfo) multi() bool { return v.first != v.last }

// opEnd returns one past the last micro-op of the operation starting at i.
func (a *analysis) opEnd(i int) int {
	j := i + 1
	for j < len(a.entries) && a.entries[j].op == a.entries[i].op {
		j++
	}
	return j
}

// analyze builds the shared index of h, which must be valid.
func analyze(h model.History) *analysis {
	a, _ := build(h, false)
	return a
}

// analyzeValid is analyze for a history not yet validated: it validates
// it in the same first pass (model.History.ValidateOp), so that Check
// walks the history's 352-byte entries once less, and returns
// model.History.Validate's error, with no index, when it is invalid.
func analyzeValid(h model.History) (*analysis, error) {
	return build(h, true)
}

func build(h model.History, validate bool) (*analysis, error) {
	a := &analysis{h: h, byTP: map[model.TopicPartition]*partition{}, seed: maphash.MakeSeed()}
	sends, err := a.summarize(validate)
	if err != nil {
		return nil, err
	}
	a.presize(a.orderParts(sends))
	// Pass 1: writers, then readers, so that a poll that returns a value
	// before its send's index still finds the writer.
	a.addWriters()
	a.addReaders()
	a.commitAndOrder()
	a.sortParts()
	return a, nil
}

// summarize is the first pass: it sums up every entry (entries.go)
// but a send's record, sums up the processes (a.procs), and counts, for
// sizing, each partition's sends (by creation index) and every poll's
// records (a.polled). With validate, it validates each entry first, and
// stops at the first that is not.
func (a *analysis) summarize(validate bool) ([]int, error) {
	h := a.h
	var txns model.TxnCheck
	var sends []int
	records := 0
	a.entries = make([]entry, len(h))
	a.procs.small = true
	limit := smallProcs(len(h))
	ops, txn := int32(-1), 0
	for i := range h {
		if validate {
			if err := h.ValidateOp(i, &txns); err != nil {
				return nil, err
			}
		}
		op := &h[i]
		if op.Txn == 0 || i == 0 || txn != op.Txn {
			ops++
		}
		txn = op.Txn
		a.hasTxn = a.hasTxn || txn > 0
		e := &a.entries[i]
		*e = entry{op: ops, sent: -1, offset: model.NoOffset, kind: kindOf(op.F), outcome: outcomeOf(op.Type)}
		a.procs.add(op.Process, op, limit)
		if a.procs.small {
			e.proc = int32(op.Process)
		}
		switch e.kind {
		case kindOther:
			a.others = append(a.others, int32(i))
		case kindSend:
			e.offset = op.Offset
			if op.TP.Topic != "" {
				p := a.part(op.TP)
				for len(sends) <= int(p.seq) {
					sends = append(sends, 0)
				}
				sends[p.seq]++
			}
		case kindPoll:
			for _, pr := range op.Records {
				records += len(pr.Records)
			}
		}
	}
	a.polled = records
	return sends, nil
}

// presize sizes each partition's records for its sends (by creation
// index), so that the tables do not grow a record at a time.
func (a *analysis) presize(sends []int) {
	n := 0
	for seq, k := range sends {
		if k == 0 {
			continue
		}
		p := a.parts[seq]
		p.ids = newRecordIDs(a.seed, k)
		p.sentAt = make([]int32, 0, k)
		p.at.dense = make([]seen, 0, k)
		p.offsets = make([]model.Offset, 0, k) // nearly every send is observed once
		n += k
	}
	a.vals = make([]valueInfo, 0, n)
	a.names = make([]string, 0, n)
}

// addWriters gives each send's record an id and its first writer, and
// notes which record the first send acknowledged at each offset wrote.
//
// The sends are taken a batch at a time: their values are hashed, then
// the table slots they hash to read in one tight loop, then their ids
// found. A slot is a cache miss (a partition's table of a hundred
// thousand records is megabytes, and values hash all over it); reads
// independent of each other, with little between them, let the
// processor wait for many misses at once, where finding each id before
// hashing the next waits for them one by one. The ids come out the
// same, in send order.
func (a *analysis) addWriters() {
	const batch = 32
	type pending struct {
		i    int32
		p    *partition
		hash uint64
	}
	var queue [batch]pending
	n := 0
	flush := func() {
		touched := uint32(0)
		for _, q := range queue[:n] {
			touched += q.p.ids.touch(q.hash)
		}
		a.touched += touched
		for _, q := range queue[:n] {
			a.addWriter(int(q.i), q.p, q.hash)
		}
		n = 0
	}
	for i := range a.entries {
		if a.entries[i].kind != kindSend {
			continue
		}
		op := &a.h[i]
		if op.TP.Topic == "" {
			// Such sends get no id: their order among the others
			// does not matter.
			if a.untargeted == nil {
				a.untargeted = map[string]*untargetedSend{}
			}
			if _, ok := a.untargeted[op.Value]; !ok {
				a.untargeted[op.Value] = &untargetedSend{op: int32(i), id: -1}
			}
			continue
		}
		p := a.part(op.TP)
		queue[n] = pending{int32(i), p, p.ids.hash(op.Value)}
		if n++; n == batch {
			flush()
		}
	}
	flush()
}

// addWriter gives send i to p, whose value hashes to h, its record.
func (a *analysis) addWriter(i int, p *partition, h uint64) {
	op := &a.h[i]
	id := a.idHashed(p, op.Value, h)
	a.entries[i].sent = id
	if v := &a.vals[id]; v.writer < 0 {
		v.writer = int32(i)
	}
	if o := a.entries[i].offset; o >= 0 && o < model.Offset(2*len(p.sentAt)+denseSlack) {
		for model.Offset(len(p.sentAt)) <= o {
			p.sentAt = append(p.sentAt, -1)
		}
		if p.sentAt[o] < 0 {
			p.sentAt[o] = id
		}
	}
}

// addReaders lays out the records each poll returned, in history order,
// and gives each record its first readers.
func (a *analysis) addReaders() {
	a.polledRecs = make([]polledRecord, 0, a.polled)
	for i := range a.entries {
		if a.entries[i].kind == kindPoll {
			a.addReader(i)
		}
	}
}

// addReader lays out poll i's records.
func (a *analysis) addReader(i int) {
	op := &a.h[i]
	ok := a.entries[i].outcome == outcomeOK
	a.entries[i].recs = int32(len(a.polledRecs))
	for _, pr := range op.Records {
		p := a.part(pr.TP)
		for _, r := range pr.Records {
			id := a.polledID(p, r)
			a.polledRecs = append(a.polledRecs, polledRecord{offset: r.Offset, id: id, part: p.seq})
			v := &a.vals[id]
			if v.writer < 0 && a.untargeted != nil {
				if u := a.untargeted[r.Value]; u != nil && u.id < 0 {
					v.writer, u.id = u.op, id
				}
			}
			if v.reader < 0 {
				v.reader = int32(i)
			}
			if v.okReader < 0 && ok {
				v.okReader = int32(i)
			}
		}
	}
	a.entries[i].nrecs = int32(len(a.polledRecs)) - a.entries[i].recs
}

// commitAndOrder is passes 2 and 3, one operation at a time, in one walk
// of the history: which operations must have committed (every read is
// known by now), then the version order, in history order: the offsets
// of sends that committed, and every poll's records whatever its outcome
// (a consumer must never return bad data, even inside a transaction that
// aborts; kafka.clj version-orders).
func (a *analysis) commitAndOrder() {
	for i := 0; i < len(a.entries); {
		j := a.opEnd(i)
		c := a.entries[i].outcome == outcomeOK
		if a.entries[i].indeterminate() {
			for k := i; k < j && !c; k++ {
				c = a.entries[k].kind == kindSend && a.sendRead(k)
			}
		}
		for k := i; k < j; k++ {
			a.entries[k].committed = c
			a.place(k)
		}
		i = j
	}
}

// inOrder sorts partitions by topic and number.
func inOrder(x, y *partition) int {
	if x.tp.Less(y.tp) {
		return -1
	}
	return 1
}

// orderParts puts the partitions the sends named in order, before any
// record names one, and returns sends (each partition's sends, by
// creation index) by the new indices. Records created from here on name
// their partition by its place in that order, which sortParts keeps
// unless a poll or a reset names a partition no send did.
func (a *analysis) orderParts(sends []int) []int {
	slices.SortFunc(a.parts, inOrder)
	ordered := make([]int, len(a.parts))
	for k, p := range a.parts {
		if int(p.seq) < len(sends) {
			ordered[k] = sends[p.seq]
		}
		p.seq = int32(k)
	}
	return ordered
}

// sortParts puts the partitions in order and sorts each one's version
// order and resets.
func (a *analysis) sortParts() {
	slices.SortFunc(a.parts, inOrder)
	// Records name their partition by its index in a.parts when they
	// were made; from here on by its place in the sorted parts. These
	// are the same unless partitions were added after orderParts.
	order := make([]int32, len(a.parts))
	moved := false
	for k, p := range a.parts {
		order[p.seq] = int32(k)
		moved = moved || p.seq != int32(k)
		p.seq = int32(k)
		p.order = k
		p.sentAt = nil
		slices.Sort(p.offsets)
		p.resets = mergeSpans(p.resets)
	}
	if !moved {
		return
	}
	for i := range a.vals {
		a.vals[i].part = order[a.vals[i].part]
	}
	for i := range a.polledRecs {
		a.polledRecs[i].part = order[a.polledRecs[i].part]
	}
}

// place adds op k to the version order and the position resets.
// Records still name their partition by its creation index; a send with
// an offset has a partition (model.History.Validate), so a record.
func (a *analysis) place(k int) {
	e := &a.entries[k]
	switch e.kind {
	case kindSend:
		if e.committed && e.offset != model.NoOffset {
			a.observe(a.parts[a.vals[e.sent].part], e.offset, a.names[e.sent], int32(k), e.sent)
		}
	case kindPoll:
		for _, r := range a.polledRecs[e.recs : e.recs+e.nrecs] {
			a.observe(a.parts[r.part], r.offset, a.names[r.id], int32(k), r.id)
		}
	default:
		if op := &a.h[k]; op.F == model.FReset && op.Type == model.OpOK {
			for _, po := range op.Offsets {
				from := max(po.From, 0)
				if po.Offset > from {
					p := a.part(po.TP)
					p.resets = append(p.resets, span{from, po.Offset})
				}
			}
		}
	}
}

// hasOther reports whether an entry of the history did f, which is
// neither a send nor a poll.
func (a *analysis) hasOther(f model.OpF) bool {
	for _, i := range a.others {
		if a.h[i].F == f {
			return true
		}
	}
	return false
}

// partOf is the partition record v belongs to.
func (a *analysis) partOf(v *valueInfo) *partition { return a.parts[v.part] }

// sendRead reports whether a poll of an ok operation returned the record
// send i wrote.
func (a *analysis) sendRead(i int) bool {
	v := a.sent(i)
	return v != nil && v.okReader >= 0
}

// sent is the record send i wrote, or nil when no one observed it and its
// partition is unknown.
func (a *analysis) sent(i int) *valueInfo {
	if id := a.entries[i].sent; id >= 0 {
		return &a.vals[id]
	}
	// A send without a partition has no record of its own.
	if u := a.untargeted[a.h[i].Value]; u != nil && u.op == int32(i) && u.id >= 0 {
		return &a.vals[u.id]
	}
	return nil
}

// acked reports whether op i is a send acknowledged at a known offset: the
// sends whose offsets are facts whatever else the history says.
func (a *analysis) acked(i int) bool {
	e := &a.entries[i]
	return e.kind == kindSend && e.outcome == outcomeOK && e.offset != model.NoOffset
}

// known reports whether send i committed at a known offset: acknowledged,
// or indeterminate with a read proving its operation took effect.
func (a *analysis) known(i int) bool {
	e := &a.entries[i]
	return e.kind == kindSend && e.committed && e.offset != model.NoOffset
}

// id is record (p, v)'s index into vals, added when new.
func (a *analysis) id(p *partition, v string) int32 {
	return a.idHashed(p, v, p.ids.hash(v))
}

// idHashed is id for a value whose hash in p's table is h.
func (a *analysis) idHashed(p *partition, v string, h uint64) int32 {
	next := int32(len(a.vals))
	// v is named as next before the table sees it, which a table that
	// grows needs; taken back if v already has an id.
	a.names = append(a.names, v)
	id, added := p.ids.getOrAdd(v, h, next, a.names)
	if !added {
		a.names = a.names[:next]
		return id
	}
	a.vals = append(a.vals, valueInfo{part: p.seq, writer: -1, reader: -1, okReader: -1, first: model.NoOffset, last: model.NoOffset})
	return id
}

// polledID is the record a poll returned as r from p: the one sent at
// r's offset when that send carried r's value, else found by value. The
// record is the same either way (records are partition and value); the
// offset only saves hashing the value.
func (a *analysis) polledID(p *partition, r model.OffsetValue) int32 {
	if o := r.Offset; o >= 0 && o < model.Offset(len(p.sentAt)) {
		if id := p.sentAt[o]; id >= 0 && a.names[id] == r.Value {
			return id
		}
	}
	return a.id(p, r.Value)
}

func (a *analysis) part(tp model.TopicPartition) *partition {
	p := a.lookup(tp)
	if p == nil {
		p = &partition{tp: tp, ids: recordIDs{seed: a.seed}, seq: int32(len(a.parts)), at: sightings{names: &a.names}}
		a.byTP[tp] = p
		a.parts = append(a.parts, p)
		a.numbered.add(p)
	}
	return p
}

// numberedParts finds the partitions of a history whose partitions are
// all of one topic (the common case, Jepsen's included) by number, with
// no comparison but the topic's. It holds while ok; started once the
// first partition is added.
type numberedParts struct {
	started, ok bool
	topic       string
	parts       []*partition // by partition number; nil where none
}

// maxNumbered bounds the partition numbers numberedParts holds.
const maxNumbered = 1 << 16

// add adds p, a partition not added before.
func (n *numberedParts) add(p *partition) {
	if !n.started {
		n.started, n.ok, n.topic = true, true, p.tp.Topic
	}
	if !n.ok {
		return
	}
	k := p.tp.Partition
	if p.tp.Topic != n.topic || k < 0 || k >= maxNumbered {
		n.ok, n.parts = false, nil
		return
	}
	for int32(len(n.parts)) <= k {
		n.parts = append(n.parts, nil)
	}
	n.parts[k] = p
}

// lookup is tp's partition, nil if no one observed it. A history usually
// has a few partitions, and comparing a few of them costs less than
// hashing a topic's name once per record: lookup runs for every send and
// every partition of every poll.
func (a *analysis) lookup(tp model.TopicPartition) *partition {
	if n := &a.numbered; n.ok {
		// Every partition is of n.topic and in n.parts.
		if k := tp.Partition; k >= 0 && k < int32(len(n.parts)) && tp.Topic == n.topic {
			return n.parts[k]
		}
		return nil
	}
	const scan = 16
	if len(a.parts) <= scan {
		for _, p := range a.parts {
			if p.tp.Partition == tp.Partition && p.tp.Topic == tp.Topic {
				return p
			}
		}
		return nil
	}
	return a.byTP[tp]
}

// observe records that op saw record id, with value, at offset o of p.
func (a *analysis) observe(p *partition, o model.Offset, value string, op, id int32) {
	// Records of one partition are its values: two ids differ exactly
	// when their values do.
	if s, ok := p.at.lookup(o); !ok {
		p.at.put(o, sighting{value, op, id})
		p.offsets = append(p.offsets, o)
	} else if s.id != id {
		known := false
		for _, c := range p.conflicts[o] {
			known = known || c.value == value
		}
		if !known {
			if p.conflicts == nil {
				p.conflicts = map[model.Offset][]sighting{}
			}
			p.conflicts[o] = append(p.conflicts[o], sighting{value, op, id})
		}
	}
	v := &a.vals[id]
	switch {
	case v.first == model.NoOffset:
		v.first, v.last = o, o
	case o < v.first:
		v.first = o
	case o > v.last:
		v.last = o
	}
}

// position is where send i's record sits in the version order, for order
// checks: its own offset when it committed at a known one, else the last
// offset a poll saw its record at; false when neither is known.
func (a *analysis) position(i int) (model.Offset, bool) {
	if a.known(i) {
		return a.entries[i].offset, true
	}
	if v := a.sent(i); v != nil && v.last != model.NoOffset {
		return v.last, true
	}
	return 0, false
}

// index is o's position in the version order; o must have been observed.
func (p *partition) index(o model.Offset) int {
	i, _ := slices.BinarySearch(p.offsets, o)
	return i
}

// excused reports whether a position reset jumped over offset o.
func (p *partition) excused(o model.Offset) bool {
	i := sort.Search(len(p.resets), func(i int) bool { return p.resets[i].to > o })
	return i < len(p.resets) && p.resets[i].from <= o
}

// valueAt is the first value seen at an observed offset.
func (p *partition) valueAt(o model.Offset) string {
	s, _ := p.at.get(o)
	return s.value
}

func mergeSpans(ss []span) []span {
	if len(ss) < 2 {
		return ss
	}
	slices.SortFunc(ss, func(x, y span) int { return cmp.Compare(x.from, y.from) })
	out := ss[:1]
	for _, s := range ss[1:] {
		last := &out[len(out)-1]
		if s.from <= last.to {
			last.to = max(last.to, s.to)
		} else {
			out = append(out, s)
		}
	}
	return out
}

// between returns the observed offsets strictly between version-order
// indices i and j, at most limit of them, and their values.
func (p *partition) between(i, j, limit int) ([]model.Offset, []string) {
	if j-i-1 > limit {
		j = i + 1 + limit
	}
	var os []model.Offset
	var vs []string
	for k := i + 1; k < j; k++ {
		os = append(os, p.offsets[k])
		vs = append(vs, p.valueAt(p.offsets[k]))
	}
	return os, vs
}

// firstAt is the first sighting at an observed offset.
func (p *partition) firstAt(o model.Offset) sighting {
	s, _ := p.at.get(o)
	return s
}
