package model

import (
	"fmt"
	"time"
)

// Recorder builds a History as clients act: an invocation appends an op,
// its completion fills the same op in. It is plain data with no I/O, so a
// simulated client can own one (or share the run's) without breaking
// determinism. Misuse (completing an op twice, or one that does not exist)
// is a programmer error and panics.
//
// Ops are kept in fixed-size chunks rather than one growing slice, so
// that a long run's millions of ops are never copied again, and in a
// compact form (opRec, 64 bytes) rather than as Ops: a send, nearly every
// op of a run, needs a third of an Op's fields, and the history is most of
// a long run's memory (every fresh page of it costs a fault). The strings
// nearly every op repeats, its topic and its kind, are kept once and
// referred to by a small index, and so are keys, which most workloads
// leave empty.
type Recorder struct {
	chunks [][]opRec
	n      int

	topics interner // indexes fit opRec.topic (uint16)
	kinds  interner // indexes fit opRec.f (uint8)
	keys   []string // keys[k-1] is the key of an op with key k; 0 is none

	// onSendOK, if set, is told of every acknowledged send (NotifySendOK).
	onSendOK func(TopicPartition)

	txns int // the last Txn number NewTxn handed out
}

// NewTxn returns a Txn number (Op.Txn) that no op of the history has yet,
// for the micro-operations of one client operation: a transactional
// producer's transaction. The recorder outlives the nodes, so numbers stay
// distinct across every client and every restart.
func (r *Recorder) NewTxn() int {
	r.txns++
	return r.txns
}

// NotifySendOK makes r call fn with the partition of every send completed
// as acknowledged from now on, as it is recorded: what a fault waiting
// for an acknowledgement (faults' "on ack") listens to. fn must not record.
func (r *Recorder) NotifySendOK(fn func(TopicPartition)) { r.onSendOK = fn }

const recorderChunk = 4096

// interner keeps each distinct string once, in first-use order, with index
// 0 for "".
type interner struct {
	names []string
	idx   map[string]uint32 // lookup only
	// The last name looked up, as most ops repeat the previous op's.
	last    string
	lastIdx uint32
}

// index returns name's index, adding it if new.
func (in *interner) index(name string) uint32 {
	if name == in.last {
		return in.lastIdx
	}
	if in.names == nil {
		in.names = []string{""}
		in.idx = map[string]uint32{"": 0}
	}
	i, ok := in.idx[name]
	if !ok {
		i = uint32(len(in.names))
		in.names = append(in.names, name)
		in.idx[name] = i
	}
	in.last, in.lastIdx = name, i
	return i
}

func (in *interner) name(i uint32) string {
	if i == 0 {
		return ""
	}
	return in.names[i]
}

// opRec is an Op as the recorder keeps it: the fields every op uses
// inline, the rest behind ext, which is nil when they are all zero. A
// value too large for its inline field (a process id beyond int32, the
// 65,536th topic, the 256th op kind) goes to ext, and a flag in typ says
// so: the compact form loses nothing.
type opRec struct {
	time    time.Duration
	end     time.Duration
	value   string
	offset  Offset
	ext     *opExt
	process int32
	part    int32  // the partition of the op's TP
	key     uint32 // 1 + the key's index in keys, 0 for no key
	topic   uint16 // the topic of the op's TP, as an index into topics
	f       uint8  // the op's kind, as an index into kinds
	typ     opType // the outcome, and the flag bits
}

// opExt holds an op's less common fields (see Op), and the inline fields'
// values that did not fit.
type opExt struct {
	err        string
	records    []PartitionRecords
	partitions []TopicPartition
	topics     []string
	group      string
	generation Epoch
	offsets    []PartitionOffset
	gained     []TopicPartition
	lost       []TopicPartition
	txn        int
	reseq      []Resequence
	ackedAs    *SentAs

	process int
	topic   string
	f       OpF
}

// opType is an OpType as a small code; the recorder sets every op's type
// itself, so only the four outcomes occur. The bits above typeMask are
// flags.
type opType uint8

const (
	typeInvoke opType = iota
	typeOK
	typeFail
	typeInfo

	typeMask opType = 3

	flagExtProcess opType = 1 << 4 // the process is ext.process
	flagExtTopic   opType = 1 << 5 // the topic is ext.topic
	flagExtKind    opType = 1 << 6 // the kind is ext.f
)

var opTypes = [...]OpType{typeInvoke: OpInvoke, typeOK: OpOK, typeFail: OpFail, typeInfo: OpInfo}

// outcome is the op's type without the flags.
func (r *opRec) outcome() opType { return r.typ & typeMask }

// setOutcome sets the op's type and keeps the flags.
func (r *opRec) setOutcome(t opType) { r.typ = r.typ&^typeMask | t }

func (rc *Recorder) pack(op *Op, t opType) opRec {
	r := opRec{time: op.Time, end: op.End, value: op.Value, offset: op.Offset, part: op.TP.Partition, typ: t}
	if op.Error != "" || op.Records != nil || op.Partitions != nil || op.Topics != nil || op.Group != "" ||
		op.Generation != 0 || op.Offsets != nil || op.Gained != nil || op.Lost != nil || op.Txn != 0 || op.Resequenced != nil || op.AckedAs != nil {
		r.ext = &opExt{
			err: op.Error, records: op.Records, partitions: op.Partitions, topics: op.Topics,
			group: op.Group, generation: op.Generation, offsets: op.Offsets, gained: op.Gained, lost: op.Lost,
			txn: op.Txn, reseq: op.Resequenced, ackedAs: op.AckedAs,
		}
	}
	r.setProcess(op.Process)
	rc.setTopic(&r, op.TP.Topic)
	rc.setKind(&r, op.F)
	rc.setKey(&r, op.Key)
	return r
}

// setProcess sets the op's process, inline when it fits an int32.
func (r *opRec) setProcess(process int) {
	if p := int32(process); int(p) == process {
		r.process = p
	} else {
		r.extra().process = process
		r.typ |= flagExtProcess
	}
}

// setKey keeps the op's key in the side table, if it has one.
func (rc *Recorder) setKey(r *opRec, key string) {
	if key != "" {
		rc.keys = append(rc.keys, key)
		r.key = uint32(len(rc.keys))
	}
}

// setKind sets the op's kind, inline when its index fits.
func (rc *Recorder) setKind(r *opRec, f OpF) {
	if k := rc.kinds.index(string(f)); k <= 0xff {
		r.f = uint8(k)
	} else {
		r.extra().f = f
		r.typ |= flagExtKind
	}
}

// setTopic sets the op's topic, inline when its index fits.
func (rc *Recorder) setTopic(r *opRec, topic string) {
	if t := rc.topics.index(topic); t <= 0xffff {
		r.topic = uint16(t)
		r.typ &^= flagExtTopic
	} else {
		r.extra().topic = topic
		r.typ |= flagExtTopic
	}
}

func (rc *Recorder) unpack(r *opRec, index int) Op {
	op := Op{
		Index: index, Process: int(r.process), Type: opTypes[r.outcome()], F: OpF(rc.kinds.name(uint32(r.f))),
		Time: r.time, End: r.end, TP: TopicPartition{Topic: rc.topics.name(uint32(r.topic)), Partition: r.part},
		Value: r.value, Offset: r.offset,
	}
	if r.key != 0 {
		op.Key = rc.keys[r.key-1]
	}
	if e := r.ext; e != nil {
		op.Error, op.Records, op.Partitions, op.Topics = e.err, e.records, e.partitions, e.topics
		op.Group, op.Generation, op.Offsets, op.Gained, op.Lost = e.group, e.generation, e.offsets, e.gained, e.lost
		op.Txn, op.Resequenced, op.AckedAs = e.txn, e.reseq, e.ackedAs
		if r.typ&flagExtProcess != 0 {
			op.Process = e.process
		}
		if r.typ&flagExtTopic != 0 {
			op.TP.Topic = e.topic
		}
		if r.typ&flagExtKind != 0 {
			op.F = e.f
		}
	}
	return op
}

// extra returns the op's ext, making it if needed.
func (r *opRec) extra() *opExt {
	if r.ext == nil {
		r.ext = &opExt{}
	}
	return r.ext
}

func (r *Recorder) add(op *Op, t opType) int { return r.addRec(r.pack(op, t)) }

// addRec appends an op in its compact form and returns its index.
func (r *Recorder) addRec(rec opRec) int {
	if r.n%recorderChunk == 0 {
		r.chunks = append(r.chunks, make([]opRec, 0, recorderChunk))
	}
	c := &r.chunks[len(r.chunks)-1]
	*c = append(*c, rec)
	r.n++
	return r.n - 1
}

func (r *Recorder) at(i int) *opRec { return &r.chunks[i/recorderChunk][i%recorderChunk] }

// Invoke records the start of op and returns its index. The caller sets
// Process, F, Time and the request's fields (TP, Key and Value for a send;
// Partitions or Topics for assign and subscribe; Offsets for commit and
// seek); Index, Type and the result fields are the recorder's.
func (r *Recorder) Invoke(op Op) int {
	op.End = 0
	if op.F == FSend {
		op.Offset = NoOffset
	}
	op.Records = nil
	return r.add(&op, typeInvoke)
}

// InvokeSend records the start of a send, as Invoke(Op{Process: process,
// F: FSend, Time: at, TP: tp, Key: key, Value: value}) does, and returns
// its index. A send is nearly every op of a history, and a producer
// records one per record: this packs it directly rather than passing a
// whole Op, hundreds of bytes, by value and copying it again.
func (r *Recorder) InvokeSend(process int, at time.Duration, tp TopicPartition, key, value string) int {
	rec := opRec{time: at, value: value, offset: NoOffset, part: tp.Partition, typ: typeInvoke}
	rec.setProcess(process)
	r.setTopic(&rec, tp.Topic)
	r.setKind(&rec, FSend)
	r.setKey(&rec, key)
	return r.addRec(rec)
}

// Event records an operation that starts and ends at one instant, such as
// a rebalance callback or a position reset, as ok. It returns its index.
func (r *Recorder) Event(op Op) int {
	op.End = op.Time
	return r.add(&op, typeOK)
}

func (r *Recorder) pending(i int) *opRec {
	if i < 0 || i >= r.n {
		panic(fmt.Sprintf("model.Recorder: no op %d", i))
	}
	rec := r.at(i)
	if rec.outcome() != typeInvoke {
		op := r.unpack(rec, i)
		panic(fmt.Sprintf("model.Recorder: op %s completed twice", &op))
	}
	return rec
}

func (r *Recorder) complete(i int, t opType, at time.Duration) *opRec {
	rec := r.pending(i)
	if at < rec.time {
		op := r.unpack(rec, i)
		panic(fmt.Sprintf("model.Recorder: op %s completes at %v, before it started", &op, at))
	}
	rec.setOutcome(t)
	rec.end = at
	return rec
}

// OK completes op i as ok with no result (assign, subscribe, commit, seek).
func (r *Recorder) OK(i int, at time.Duration) { r.complete(i, typeOK, at) }

// SendOK completes send i: the broker put it at offset o of tp (tp matters
// when the record's key chose the partition).
func (r *Recorder) SendOK(i int, at time.Duration, tp TopicPartition, o Offset) {
	rec := r.complete(i, typeOK, at)
	r.setTopic(rec, tp.Topic)
	rec.part, rec.offset = tp.Partition, o
	if r.onSendOK != nil {
		r.onSendOK(tp)
	}
}

// PollOK completes poll i with what it returned. The records are kept as
// given (the recorder owns them from now on); partitions are put in order.
func (r *Recorder) PollOK(i int, at time.Duration, recs []PartitionRecords) {
	rec := r.complete(i, typeOK, at)
	SortRecords(recs)
	if recs != nil || rec.ext != nil {
		rec.extra().records = recs
	}
}

// Fail completes op i as certainly not having happened, with the reason.
func (r *Recorder) Fail(i int, at time.Duration, reason string) {
	r.complete(i, typeFail, at).extra().err = reason
}

// Info completes op i as indeterminate (a timeout, a lost answer).
func (r *Recorder) Info(i int, at time.Duration, reason string) {
	r.complete(i, typeInfo, at).extra().err = reason
}

// Resequenced notes on send i, still running, that an epoch bump rewrote
// its record's (epoch, sequence) in tp as rs says (Op.Resequenced). tp
// is recorded as the send's partition: a keyed send's is known once its
// batch has a sequence, and the rewrite is about that partition.
func (r *Recorder) Resequenced(i int, tp TopicPartition, rs Resequence) {
	rec := r.pending(i)
	r.setTopic(rec, tp.Topic)
	rec.part = tp.Partition
	e := rec.extra()
	e.reseq = append(e.reseq, rs)
}

// AckedAs notes on send i, still running, that the answer about to
// acknowledge it is to an attempt sent as as, before an epoch bump rewrote
// the record (Op.AckedAs). SendOK completes it.
func (r *Recorder) AckedAs(i int, as SentAs) {
	r.pending(i).extra().ackedAs = &as
}

// Op returns op i as History()[i] would, without building the whole
// history: code that watches a run as it goes (a liveness check looking
// every few virtual milliseconds) reads the new ops only.
func (r *Recorder) Op(i int) Op {
	if i < 0 || i >= r.n {
		panic(fmt.Sprintf("model.Recorder: no op %d (%d recorded)", i, r.n))
	}
	return r.unpack(r.at(i), i)
}

// Running reports whether op i is still running (its Type is OpInvoke),
// without reading the rest of it.
func (r *Recorder) Running(i int) bool {
	if i < 0 || i >= r.n {
		panic(fmt.Sprintf("model.Recorder: no op %d (%d recorded)", i, r.n))
	}
	return r.at(i).outcome() == typeInvoke
}

// Len is the number of ops recorded so far.
func (r *Recorder) Len() int { return r.n }

// History returns a copy of the ops recorded so far; ops still running
// keep Type OpInvoke.
func (r *Recorder) History() History {
	out := make(History, 0, r.n)
	for _, c := range r.chunks {
		for i := range c {
			out = append(out, r.unpack(&c[i], len(out)))
		}
	}
	return out
}
