package model

import (
	"fmt"
	"slices"
	"sort"
	"time"
)

// A History is what the clients of a run observed, in Jepsen's vocabulary:
// every operation a client started, when it started and ended (virtual
// time), and what came of it. Checkers judge a run from its history alone
// (plus, where available, the replicas' logs read at the end).
//
// # One record per operation
//
// Jepsen writes two events per operation (an invocation and a completion,
// paired by process). kafkasim keeps one Op per operation holding both
// times instead: porcupine wants exactly that (Call and Return), the
// anomaly checks want the invocation and its outcome side by side, and no
// checker has to pair events or guess which completion belongs to which
// invocation when a process has several operations in flight (a pipelining
// producer). Ops are in invocation order: Index is the position in the
// history, and an operation still running when the history ended keeps
// Type OpInvoke. Readers of Jepsen's two-event form pair them on input.
type History []Op

// OpType is the outcome of an operation, after Jepsen: ok, it happened;
// fail, it certainly did not; info, unknown (a timeout or a lost answer).
// OpInvoke marks an operation that had not completed when the history
// ended; checkers treat it like info.
type OpType string

// The outcomes of an operation.
const (
	OpInvoke OpType = "invoke"
	OpOK     OpType = "ok"
	OpFail   OpType = "fail"
	OpInfo   OpType = "info"
)

// Valid reports whether t is one of the four outcomes.
func (t OpType) Valid() bool {
	switch t {
	case OpInvoke, OpOK, OpFail, OpInfo:
		return true
	}
	return false
}

// Indeterminate reports whether the operation may or may not have taken
// effect: info, or never completed.
func (t OpType) Indeterminate() bool { return t == OpInfo || t == OpInvoke }

// OpF is what an operation did (Jepsen's :f).
type OpF string

// The operations a client performs.
const (
	// FSend produces one record (Value) to TP (or to Key's partition); when
	// ok, Offset is where the broker put it.
	FSend OpF = "send"
	// FPoll is one consumer poll; when ok, Records are what it returned.
	FPoll OpF = "poll"
	// FAssign replaces the consumer's partitions with Partitions.
	FAssign OpF = "assign"
	// FSubscribe replaces the consumer's subscription with Topics (or, when
	// the source names partitions, Partitions); the group assigns them.
	FSubscribe OpF = "subscribe"
	// FCommit commits Offsets (the next offset to read) for Group in
	// Generation.
	FCommit OpF = "commit"
	// FRebalance is a consumer's rebalance callback: in Group's Generation
	// it gained Gained and lost Lost.
	FRebalance OpF = "rebalance"
	// FSeek moves the consumer's position to Offsets, on the client's
	// explicit request.
	FSeek OpF = "seek"
	// FReset is a position reset the client did not ask for: retention
	// deleted the position (OFFSET_OUT_OF_RANGE) or there was no committed
	// offset, and auto.offset.reset moved it from From to Offset. It lets a
	// checker tell an expected skip from a lost record.
	FReset OpF = "reset"
)

// Valid reports whether f is a known operation.
func (f OpF) Valid() bool {
	switch f {
	case FSend, FPoll, FAssign, FSubscribe, FCommit, FRebalance, FSeek, FReset:
		return true
	}
	return false
}

// OffsetValue is one record as a client saw it: where it was and the value
// it carried. A record is (partition, value): kafkasim's runs make values
// unique per run, histories from elsewhere (Jepsen's) per partition only.
type OffsetValue struct {
	Offset Offset
	Value  string
}

// PartitionRecords are the records one poll returned from one partition,
// in the order the poll returned them.
type PartitionRecords struct {
	TP      TopicPartition
	Records []OffsetValue
}

// PartitionOffset is an offset for one partition: a committed offset, a
// seek target, or a reset's new position. From is the position a reset
// moved away from (NoOffset when the consumer had none); other operations
// leave it NoOffset.
type PartitionOffset struct {
	TP     TopicPartition
	Offset Offset
	From   Offset
}

// Resequence is what an idempotent producer did to an unacknowledged
// record when it bumped its epoch: Kafka's producer without a transactional
// id bumps its epoch locally and restarts the sequences of the partition's
// in-flight batches at 0 (TransactionManager.bumpIdempotentProducerEpoch,
// TxnPartitionEntry.startSequencesAtBeginning). A broker that already
// appended the record under its old (epoch, sequence), and no longer
// remembers that batch among the producer's last five
// (ProducerStateEntry.NUM_BATCHES_TO_RETAIN), takes sequence 0 of the new
// epoch as new and appends the record again. The history keeps the
// rewrite so that a checker can tell that copy from a broken
// deduplication; histories from elsewhere (Jepsen's) never carry it.
type Resequence struct {
	At        time.Duration // when the producer bumped its epoch
	FromEpoch Epoch         // the record's producer epoch before the bump
	FromSeq   int32         // the record's own sequence before the bump
	ToEpoch   Epoch         // after the bump
	ToSeq     int32         // the record's own sequence after the bump
}

// SentAs is the (epoch, sequence) an attempt of a record's batch carried:
// the record's own sequence, its batch's base plus its place in the batch.
type SentAs struct {
	Epoch Epoch
	Seq   int32
}

// Op is one client operation: who did it, when, and what came of it.
// Fields that do not apply to F stay zero (offsets stay NoOffset).
type Op struct {
	Index   int           // position in the history; ops are in invocation order
	Process int           // the client that performed it; a client may have several ops in flight
	Type    OpType        // outcome
	F       OpF           // what it did
	Time    time.Duration // invocation, virtual time since the run started
	End     time.Duration // completion; meaningless while Type is OpInvoke
	Error   string        // fail or info: the reason (a Kafka error name, "timeout")

	// send
	TP     TopicPartition // the partition written; may be zero until ok when Key chooses it
	Key    string         // optional record key
	Value  string         // the record's value, unique within its partition
	Offset Offset         // ok: where the record landed; NoOffset otherwise

	// poll: what it returned, one entry per partition, ordered by partition.
	Records []PartitionRecords

	// assign, subscribe: the new assignment or subscription.
	Partitions []TopicPartition
	Topics     []string

	// commit, rebalance: the group and its generation.
	Group      string
	Generation Epoch

	// commit, seek, reset: one offset per partition.
	Offsets []PartitionOffset

	// rebalance: what the member gained and lost in Generation.
	Gained []TopicPartition
	Lost   []TopicPartition

	// send, idempotent producer: every time an epoch bump re-sequenced the
	// record's batch while an attempt of it was in flight without an
	// acknowledgement, in order (see Resequence).
	Resequenced []Resequence
	// AckedAs, on an ok send with Resequenced: the (epoch, sequence) the
	// acknowledged attempt carried, when that attempt was sent before an
	// epoch bump rewrote the record (one of Resequenced's From). Kafka's
	// Sender.completeBatch completes a batch from whichever attempt's
	// answer comes, and the broker placed that attempt under its old
	// epoch. Nil when the answer was to the record's last identity.
	AckedAs *SentAs

	// Txn ties together the micro-operations of one client operation that
	// did several things at once: a Jepsen :txn, or a :send or :poll with
	// several micro-operations. Ops with the same Txn > 0 are one
	// operation, stored as consecutive Ops in micro-operation order, with
	// the operation's Process, Type, Time and End; its outcome is theirs
	// together (an aborted transaction is fail for all its parts). Txn 0
	// (every op but a transactional producer's sends) is an operation of
	// its own.
	Txn int
}

// Completed reports whether the operation finished with a known or unknown
// outcome (anything but OpInvoke).
func (op *Op) Completed() bool { return op.Type != OpInvoke }

// String is a one-line description for error messages and test failures,
// such as "#3 p1 ok send t/0 v3 @2 [1ms,3ms]".
func (op *Op) String() string {
	s := fmt.Sprintf("#%d p%d %s %s", op.Index, op.Process, op.Type, op.F)
	switch op.F {
	case FSend:
		s += " " + op.TP.String() + " " + op.Value
		if op.Offset != NoOffset {
			s += fmt.Sprintf(" @%d", op.Offset)
		}
	case FPoll:
		for _, pr := range op.Records {
			s += " " + pr.TP.String() + ":["
			for i, r := range pr.Records {
				if i > 0 {
					s += " "
				}
				s += fmt.Sprintf("%d=%s", r.Offset, r.Value)
			}
			s += "]"
		}
	case FAssign, FSubscribe:
		s += fmt.Sprint(" ", op.Partitions, op.Topics)
	case FRebalance:
		s += fmt.Sprintf(" %s gen %d +%v -%v", op.Group, op.Generation, op.Gained, op.Lost)
	case FCommit, FSeek, FReset:
		if op.Group != "" {
			s += " " + op.Group
		}
		for _, po := range op.Offsets {
			s += fmt.Sprintf(" %s=%d", po.TP, po.Offset)
		}
	}
	if op.Completed() {
		s += fmt.Sprintf(" [%v,%v]", op.Time, op.End)
	} else {
		s += fmt.Sprintf(" [%v,…]", op.Time)
	}
	return s
}

// Validate checks the facts every checker relies on, so that checkers can
// trust them instead of re-checking: indices are positions, outcomes and
// operations are known, a completion does not precede its invocation, an
// acknowledged send says which partition it wrote, a poll's partitions are
// in order without repeats, and the micro-operations of one operation (one
// Txn) are consecutive and agree on who did it, when, and its outcome. It
// returns the first problem with the op's index.
func (h History) Validate() error {
	var txns TxnCheck
	for i := range h {
		if err := h.ValidateOp(i, &txns); err != nil {
			return err
		}
	}
	return nil
}

// ValidateOp is Validate's check of op i, for a reader that walks the
// history anyway and would rather not walk it twice: Validate is
// ValidateOp on every op in order, with one TxnCheck, stopping at the
// first error.
func (h History) ValidateOp(i int, txns *TxnCheck) error {
	if err := h[i].validate(i); err != nil {
		return fmt.Errorf("op %d: %w", i, err)
	}
	if err := txns.Next(h, i); err != nil {
		return fmt.Errorf("op %d: %w", i, err)
	}
	return nil
}

// TxnCheck checks the Txn contract one op at a time, so that a reader can
// name the line of the op that breaks it: ops sharing a Txn > 0 are
// consecutive and share Process, Type, Time and End. The zero value is
// ready; feed it every op in order.
type TxnCheck struct {
	// ended holds the Txns whose run of ops has ended while they end in
	// ascending order, which is the common case (a recorder numbers
	// transactions as they begin): a sorted slice then answers, where a
	// set would cost a map insertion per transaction, the most of
	// validating a history of a million. It holds them as ranges of
	// consecutive Txns, since a recorder numbering them as they begin
	// makes one range of them all, where a Txn each grew a slice of
	// millions. done takes over for good once a Txn ends below one ended
	// before it.
	ended []txnRange
	done  map[int]bool
}

// txnRange is the Txns from through to.
type txnRange struct{ from, to int }

// end records that Txn t's run of ops has ended.
func (c *TxnCheck) end(t int) {
	switch {
	case c.done != nil:
		c.done[t] = true
	case len(c.ended) == 0 || t > c.ended[len(c.ended)-1].to:
		if last := len(c.ended) - 1; last >= 0 && c.ended[last].to+1 == t {
			c.ended[last].to = t
		} else {
			c.ended = append(c.ended, txnRange{t, t})
		}
	default:
		c.done = map[int]bool{}
		for _, r := range c.ended {
			for e := r.from; e <= r.to; e++ {
				c.done[e] = true
			}
		}
		c.done[t], c.ended = true, nil
	}
}

// ran reports whether Txn t's run of ops has ended.
func (c *TxnCheck) ran(t int) bool {
	if c.done != nil {
		return c.done[t]
	}
	if len(c.ended) == 0 || t > c.ended[len(c.ended)-1].to {
		return false
	}
	k := sort.Search(len(c.ended), func(k int) bool { return c.ended[k].to >= t })
	return c.ended[k].from <= t
}

// Next checks h[i] against h[i-1].
func (c *TxnCheck) Next(h History, i int) error {
	op := &h[i]
	if i > 0 {
		prev := &h[i-1]
		if prev.Txn > 0 && prev.Txn == op.Txn {
			switch {
			case prev.Process != op.Process:
				return fmt.Errorf("txn %d: process %d, but its op %d has process %d (one operation has one client)", op.Txn, op.Process, i-1, prev.Process)
			case prev.Type != op.Type:
				return fmt.Errorf("txn %d: type %s, but its op %d has type %s (one operation has one outcome)", op.Txn, op.Type, i-1, prev.Type)
			case prev.Time != op.Time || prev.End != op.End:
				return fmt.Errorf("txn %d: times [%v,%v], but its op %d has [%v,%v] (one operation has one invocation and completion)", op.Txn, op.Time, op.End, i-1, prev.Time, prev.End)
			}
			return nil
		}
		if prev.Txn > 0 {
			c.end(prev.Txn)
		}
	}
	if op.Txn > 0 && c.ran(op.Txn) {
		return fmt.Errorf("txn %d: its ops are not consecutive (another operation came between)", op.Txn)
	}
	return nil
}

// validateResequenced checks a send's rewrites: each one moves the record
// to a later epoch, at or after the send started (and before it ended),
// in order of time.
func (op *Op) validateResequenced() error {
	if len(op.Resequenced) > 0 && op.TP.Topic == "" {
		return fmt.Errorf("resequenced send without a partition")
	}
	for k, r := range op.Resequenced {
		switch {
		case r.FromEpoch < 0 || r.ToEpoch <= r.FromEpoch:
			return fmt.Errorf("resequenced[%d]: epoch %d to %d; an epoch bump moves to a later epoch", k, r.FromEpoch, r.ToEpoch)
		case r.FromSeq < 0 || r.ToSeq < 0:
			return fmt.Errorf("resequenced[%d]: negative sequence (%d to %d)", k, r.FromSeq, r.ToSeq)
		case r.At < op.Time || (op.Completed() && r.At > op.End):
			return fmt.Errorf("resequenced[%d] at %v, outside the send's [%v, %v]", k, r.At, op.Time, op.End)
		case k > 0 && (r.At < op.Resequenced[k-1].At || r.FromEpoch < op.Resequenced[k-1].ToEpoch):
			return fmt.Errorf("resequenced[%d]: out of order after resequenced[%d]", k, k-1)
		}
	}
	if a := op.AckedAs; a != nil {
		switch {
		case op.Type != OpOK || len(op.Resequenced) == 0:
			return fmt.Errorf("\"acked_as\" on a send that is not ok and resequenced")
		case !slices.ContainsFunc(op.Resequenced, func(r Resequence) bool { return r.FromEpoch == a.Epoch && r.FromSeq == a.Seq }):
			return fmt.Errorf("\"acked_as\" epoch %d sequence %d is none of the identities an epoch bump rewrote", a.Epoch, a.Seq)
		}
	}
	return nil
}

func (op *Op) validate(i int) error {
	if op.Index != i {
		return fmt.Errorf("index %d, want %d (ops are numbered by position)", op.Index, i)
	}
	if !op.Type.Valid() {
		return fmt.Errorf("unknown op type %q", op.Type)
	}
	if !op.F.Valid() {
		return fmt.Errorf("unknown op f %q", op.F)
	}
	if op.Process < 0 {
		return fmt.Errorf("negative process %d", op.Process)
	}
	if op.Time < 0 {
		return fmt.Errorf("negative time %v", op.Time)
	}
	if op.Completed() && op.End < op.Time {
		return fmt.Errorf("ends at %v before it starts at %v", op.End, op.Time)
	}
	if op.Txn < 0 {
		return fmt.Errorf("negative txn %d", op.Txn)
	}
	if op.F != FSend && (len(op.Resequenced) > 0 || op.AckedAs != nil) {
		return fmt.Errorf("%s op with \"resequenced\" or \"acked_as\": only a send has one", op.F)
	}
	switch op.F {
	case FSend:
		if op.Value == "" {
			return fmt.Errorf("send without a value")
		}
		if op.Type == OpOK && op.TP.Topic == "" {
			return fmt.Errorf("ok send without a partition")
		}
		// Any completed send may report an offset: an ok one where the
		// broker put it, an info or fail one what the client was told
		// before the outcome went unknown or the transaction aborted
		// (Jepsen keeps those; checkers decide what they prove). An ok
		// send may also lack one: Jepsen's clients do not always learn it.
		switch {
		case op.Offset != NoOffset && op.Offset < 0:
			return fmt.Errorf("send at negative offset %d", op.Offset)
		case op.Offset != NoOffset && !op.Completed():
			return fmt.Errorf("send with offset %d that never completed", op.Offset)
		case op.Offset != NoOffset && op.TP.Topic == "":
			return fmt.Errorf("send with offset %d but without a partition", op.Offset)
		}
		if err := op.validateResequenced(); err != nil {
			return err
		}
	case FPoll:
		for j, pr := range op.Records {
			if pr.TP.Topic == "" {
				return fmt.Errorf("poll records without a partition")
			}
			if j > 0 && !op.Records[j-1].TP.Less(pr.TP) {
				return fmt.Errorf("poll partitions out of order or repeated at %s", pr.TP)
			}
			for _, r := range pr.Records {
				if r.Offset < 0 {
					return fmt.Errorf("poll record at negative offset %d", r.Offset)
				}
			}
		}
	case FCommit, FSeek, FReset:
		for _, po := range op.Offsets {
			if po.TP.Topic == "" {
				return fmt.Errorf("%s offset without a partition", op.F)
			}
		}
	}
	return nil
}

// SortRecords puts a poll's partitions in the order Validate wants.
func SortRecords(rs []PartitionRecords) {
	slices.SortFunc(rs, func(a, b PartitionRecords) int { return a.TP.Compare(b.TP) })
}
