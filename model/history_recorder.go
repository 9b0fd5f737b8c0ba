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
// compact form (opRec) rather than as Ops: a send, nearly every op of a
// run, needs a third of an Op's fields, and the history is most of a long
// run's memory. The strings nearly every op repeats, its topic and its
// kind, are kept once in names and referred to by index.
type Recorder struct {
	chunks [][]opRec
	n      int

	names   []string          // interned topics and op kinds; names[0] is ""
	nameIdx map[string]uint32 // index of each name in names
	// The last two names looked up, as most ops repeat the previous op's
	// topic and kind.
	lastName [2]string
	lastIdx  [2]uint32
}

const recorderChunk = 4096

// opRec is an Op as the recorder keeps it: the fields every op uses
// inline, the rest behind ext, which is nil when they are all zero.
type opRec struct {
	process int
	time    time.Duration
	end     time.Duration
	key     string
	value   string
	offset  Offset
	ext     *opExt
	topic   uint32 // the topic of the op's TP, as an index into names
	part    int32  // the partition of the op's TP
	f       uint32 // the op's kind, as an index into names
	typ     opType
}

// opExt holds an op's less common fields (see Op).
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
}

// opType is an OpType as a small code; the recorder sets every op's type
// itself, so only the four outcomes occur.
type opType uint8

const (
	typeInvoke opType = iota
	typeOK
	typeFail
	typeInfo
)

var opTypes = [...]OpType{typeInvoke: OpInvoke, typeOK: OpOK, typeFail: OpFail, typeInfo: OpInfo}

func (rc *Recorder) pack(op *Op, t opType) opRec {
	r := opRec{
		process: op.Process, f: rc.intern(1, string(op.F)), time: op.Time, end: op.End,
		topic: rc.intern(0, op.TP.Topic), part: op.TP.Partition,
		key: op.Key, value: op.Value, offset: op.Offset, typ: t,
	}
	if op.Error != "" || op.Records != nil || op.Partitions != nil || op.Topics != nil || op.Group != "" ||
		op.Generation != 0 || op.Offsets != nil || op.Gained != nil || op.Lost != nil {
		r.ext = &opExt{
			err: op.Error, records: op.Records, partitions: op.Partitions, topics: op.Topics,
			group: op.Group, generation: op.Generation, offsets: op.Offsets, gained: op.Gained, lost: op.Lost,
		}
	}
	return r
}

// intern returns the index of name in rc.names, adding it if new; slot
// says which of the two last-looked-up names to try first (0 for topics,
// 1 for op kinds).
func (rc *Recorder) intern(slot int, name string) uint32 {
	if rc.names == nil {
		rc.names = []string{""}
		rc.nameIdx = map[string]uint32{"": 0}
	}
	if name == rc.lastName[slot] {
		return rc.lastIdx[slot]
	}
	i, ok := rc.nameIdx[name]
	if !ok {
		i = uint32(len(rc.names))
		rc.names = append(rc.names, name)
		rc.nameIdx[name] = i
	}
	rc.lastName[slot], rc.lastIdx[slot] = name, i
	return i
}

func (rc *Recorder) unpack(r *opRec, index int) Op {
	op := Op{
		Index: index, Process: r.process, Type: opTypes[r.typ], F: OpF(rc.names[r.f]), Time: r.time, End: r.end,
		TP: TopicPartition{Topic: rc.names[r.topic], Partition: r.part}, Key: r.key, Value: r.value, Offset: r.offset,
	}
	if e := r.ext; e != nil {
		op.Error, op.Records, op.Partitions, op.Topics = e.err, e.records, e.partitions, e.topics
		op.Group, op.Generation, op.Offsets, op.Gained, op.Lost = e.group, e.generation, e.offsets, e.gained, e.lost
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

func (r *Recorder) add(op *Op, t opType) int {
	if r.n%recorderChunk == 0 {
		r.chunks = append(r.chunks, make([]opRec, 0, recorderChunk))
	}
	c := &r.chunks[len(r.chunks)-1]
	*c = append(*c, r.pack(op, t))
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
	if rec.typ != typeInvoke {
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
	rec.typ, rec.end = t, at
	return rec
}

// OK completes op i as ok with no result (assign, subscribe, commit, seek).
func (r *Recorder) OK(i int, at time.Duration) { r.complete(i, typeOK, at) }

// SendOK completes send i: the broker put it at offset o of tp (tp matters
// when the record's key chose the partition).
func (r *Recorder) SendOK(i int, at time.Duration, tp TopicPartition, o Offset) {
	rec := r.complete(i, typeOK, at)
	rec.topic, rec.part, rec.offset = r.intern(0, tp.Topic), tp.Partition, o
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
	return r.at(i).typ == typeInvoke
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
