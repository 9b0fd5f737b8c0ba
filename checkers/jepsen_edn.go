package checkers

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"time"

	"kafkasim/model"
)

// JepsenTopic is the topic that a Jepsen history's keys become partitions
// of.
const JepsenTopic = "jepsen"

// maxJepsenInput bounds what ReadJepsenEDN reads into memory.
const maxJepsenInput = 1 << 30

// ReadJepsenEDN reads a history.edn written by Jepsen's Kafka workload
// (jepsen.tests.kafka) into a model.History, so that histories recorded
// against real Kafka or Redpanda clusters get the same analysis.
//
// Jepsen writes an invocation and a completion per operation, paired by
// process; they become one model.Op. Operations :send, :poll and :txn
// carry micro-operations, [:send k v] (completed as [:send k [offset v]])
// and [:poll] (completed as [:poll {k [[offset v] ...]}]); each becomes
// its own Op, in order, with the operation's times. :assign and :subscribe
// name keys. Every key becomes a partition of topic "jepsen": an integer
// key k is partition k, other keys (keywords, strings) are numbered after
// the largest integer key in order of first appearance. Values read as
// text: 5 as "5", :x as ":x", "x" as "x". Operations of non-integer
// processes (the nemesis), :crash and :debug-topic-partitions are skipped.
// A completion's :rebalance-log (the rebalances a subscribed consumer went
// through during the operation, each {:keys [...]}) becomes a rebalance op
// of the process, with no group, just before the operation, gaining those
// keys: as kafka.clj's int-poll-skip+nonmonotonic-cases does, the order
// checks do not hold the operation's reads of those partitions to the
// consumer's previous position.
//
// A Jepsen operation with several micro-operations, and every :txn, stays
// one operation: its Ops share a model.Op.Txn. A send keeps its
// operation's type and whatever offset its completion reported, also for
// info and fail (the checkers decide what such an offset proves, as
// kafka.clj's must-have-committed? does); an ok send without an offset
// keeps model.NoOffset. An unknown :f, a :send, :poll or :txn value that is
// not a vector of micro-operations, or a completion whose micro-operations
// do not match its invocation's is an error. Errors read
// "name:line: reason".
func ReadJepsenEDN(r io.Reader, name string) (model.History, error) {
	b, err := io.ReadAll(io.LimitReader(r, maxJepsenInput+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(b) > maxJepsenInput {
		return nil, fmt.Errorf("%s: larger than %d bytes", name, maxJepsenInput)
	}
	h, err := readJepsen(string(b))
	if err != nil {
		var le *lineError
		if errors.As(err, &le) {
			return nil, fmt.Errorf("%s:%d: %s", name, le.line, le.msg)
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if err := h.Validate(); err != nil {
		// The conversion is meant to produce only valid histories; say so
		// rather than hand a checker something it cannot trust.
		return nil, fmt.Errorf("%s: converted history is invalid: %w", name, err)
	}
	return h, nil
}

// jepsenOp is one Jepsen event read from the file.
type jepsenOp struct {
	typ     model.OpType
	f       string
	process int
	time    time.Duration
	value   ednValue
	hasVal  bool
	// rebalanced: the keys of the completion's :rebalance-log, if any.
	rebalanced []ednValue
	err        string
	line       int
}

func readJepsen(src string) (model.History, error) {
	rd := &ednReader{src: src, line: 1}
	var events []jepsenOp
	for {
		v, err := rd.next(0)
		if err == errEOF {
			break
		}
		if err != nil {
			return nil, err
		}
		// A file may also hold one vector of all operations.
		forms := []ednValue{v}
		if v.kind == ednVector || v.kind == ednList {
			forms = v.items
		}
		for _, f := range forms {
			e, keep, err := jepsenEvent(f)
			if err != nil {
				return nil, err
			}
			if keep {
				events = append(events, e)
			}
		}
	}
	c := &jepsenConv{part: map[string]int32{}}
	if err := c.numberKeys(events); err != nil {
		return nil, err
	}
	return c.convert(events)
}

func lineErr(line int, format string, args ...any) error {
	return &lineError{line: line, msg: fmt.Sprintf(format, args...)}
}

// jepsenEvent reads one operation map; keep is false for events that are
// not a client's (the nemesis's).
func jepsenEvent(v ednValue) (jepsenOp, bool, error) {
	if v.kind != ednMap {
		return jepsenOp{}, false, lineErr(v.line, "want an operation map, got a %s", v.kind)
	}
	e := jepsenOp{line: v.line}
	p, ok := v.get("process")
	if !ok {
		return e, false, lineErr(v.line, "operation without :process")
	}
	if p.kind != ednInt {
		return e, false, nil // :nemesis and friends
	}
	if p.i < 0 || p.i > math.MaxInt32 {
		return e, false, lineErr(v.line, "process %d out of range", p.i)
	}
	e.process = int(p.i)
	t, ok := v.get("type")
	if !ok || t.kind != ednKeyword {
		return e, false, lineErr(v.line, "operation without a keyword :type")
	}
	e.typ = model.OpType(t.s)
	if !e.typ.Valid() {
		return e, false, lineErr(v.line, "unknown op type :%s", t.s)
	}
	f, ok := v.get("f")
	if !ok || f.kind != ednKeyword {
		return e, false, lineErr(v.line, "operation without a keyword :f")
	}
	e.f = f.s
	if !jepsenFs[e.f] {
		return e, false, lineErr(v.line, "unknown :f :%s (Jepsen's Kafka workload has :send, :poll, :txn, :assign, :subscribe, :crash and :debug-topic-partitions)", e.f)
	}
	tm, ok := v.get("time")
	if !ok || tm.kind != ednInt || tm.i < 0 {
		return e, false, lineErr(v.line, "operation without a non-negative integer :time")
	}
	e.time = time.Duration(tm.i)
	e.value, e.hasVal = v.get("value")
	if rl, ok := v.get("rebalance-log"); ok && rl.kind != ednNil {
		if rl.kind != ednVector && rl.kind != ednList {
			return e, false, lineErr(rl.line, ":rebalance-log %s: want a vector of {:keys [...]} maps", rl)
		}
		for _, ev := range rl.items {
			if ev.kind != ednMap {
				return e, false, lineErr(ev.line, "rebalance %s: want a map with :keys", ev)
			}
			ks, ok := ev.get("keys")
			if !ok || ks.kind == ednNil {
				continue
			}
			if ks.kind != ednVector && ks.kind != ednList && ks.kind != ednSet {
				return e, false, lineErr(ks.line, "rebalance :keys %s: want a collection of keys", ks)
			}
			e.rebalanced = append(e.rebalanced, ks.items...)
		}
	}
	if er, ok := v.get("error"); ok && er.kind != ednNil {
		e.err = er.String()
		if er.kind == ednString || er.kind == ednKeyword {
			e.err = er.s
		}
	}
	return e, true, nil
}

// jepsenFs are the :f values of a client in Jepsen's Kafka workload
// (jepsen.tests.kafka: the client's invoke!, crash-client-gen and
// final-polls). :crash and :debug-topic-partitions change nothing a
// checker judges and are dropped.
var jepsenFs = map[string]bool{
	"send": true, "poll": true, "txn": true, "assign": true, "subscribe": true,
	"crash": true, "debug-topic-partitions": true,
}

type jepsenConv struct {
	part    map[string]int32 // key's identity → partition
	lastTxn int              // the last model.Op.Txn given out
}

// keyID is a key's identity: 5, :5 and "5" are different keys.
func keyID(k ednValue) (string, error) {
	switch k.kind {
	case ednInt:
		return "i" + k.s, nil
	case ednKeyword:
		return "k" + k.s, nil
	case ednString:
		return "s" + k.s, nil
	}
	return "", lineErr(k.line, "key %s: want an integer, keyword or string", k)
}

// keysOf calls fn on every key an event names.
func keysOf(e *jepsenOp, fn func(ednValue) error) error {
	for _, k := range e.rebalanced {
		if err := fn(k); err != nil {
			return err
		}
	}
	if !e.hasVal {
		return nil
	}
	switch e.f {
	case "assign", "subscribe":
		if e.value.kind != ednVector && e.value.kind != ednList && e.value.kind != ednSet {
			return nil
		}
		for _, k := range e.value.items {
			if err := fn(k); err != nil {
				return err
			}
		}
	case "send", "poll", "txn":
		if e.value.kind != ednVector && e.value.kind != ednList {
			return nil
		}
		for _, mop := range e.value.items {
			if len(mop.items) < 2 || mop.items[0].kind != ednKeyword {
				continue
			}
			switch mop.items[0].s {
			case "send":
				if err := fn(mop.items[1]); err != nil {
					return err
				}
			case "poll":
				if mop.items[1].kind == ednMap {
					for j := 0; j < len(mop.items[1].items); j += 2 {
						if err := fn(mop.items[1].items[j]); err != nil {
							return err
						}
					}
				}
			}
		}
	}
	return nil
}

// numberKeys gives each key its partition: integer keys their own number,
// the rest numbers after the largest integer key, by first appearance.
func (c *jepsenConv) numberKeys(events []jepsenOp) error {
	next := int64(0)
	for i := range events {
		err := keysOf(&events[i], func(k ednValue) error {
			if k.kind == ednInt && k.i >= 0 && k.i < math.MaxInt32 {
				next = max(next, k.i+1)
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	for i := range events {
		err := keysOf(&events[i], func(k ednValue) error {
			id, err := keyID(k)
			if err != nil {
				return err
			}
			if _, ok := c.part[id]; ok {
				return nil
			}
			if k.kind == ednInt && k.i >= 0 && k.i < math.MaxInt32 {
				c.part[id] = int32(k.i)
				return nil
			}
			if next >= math.MaxInt32 {
				return lineErr(k.line, "too many keys")
			}
			c.part[id] = int32(next)
			next++
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

func (c *jepsenConv) tp(k ednValue) (model.TopicPartition, error) {
	id, err := keyID(k)
	if err != nil {
		return model.TopicPartition{}, err
	}
	return model.TP(JepsenTopic, c.part[id]), nil
}

// jepsenValue is a value's text.
func jepsenValue(v ednValue) (string, error) {
	switch v.kind {
	case ednInt:
		return v.s, nil
	case ednKeyword:
		return ":" + v.s, nil
	case ednString:
		if v.s == "" {
			return "", lineErr(v.line, "empty string value")
		}
		return v.s, nil
	}
	return "", lineErr(v.line, "value %s: want an integer, keyword or string", v)
}

func (c *jepsenConv) convert(events []jepsenOp) (model.History, error) {
	pairs, err := pairEvents(events)
	if err != nil {
		return nil, err
	}
	var h model.History
	for _, p := range pairs {
		ops, err := c.pairOps(events, p)
		if err != nil {
			return nil, err
		}
		for _, o := range ops {
			o.Index = len(h)
			h = append(h, o)
		}
	}
	return h, nil
}

// eventPair is an invocation and its completion, indices into the
// events; comp is -1 for an invocation that never completed.
type eventPair struct{ inv, comp int }

// pairEvents pairs each invocation with its process's next completion,
// in invocation order.
func pairEvents(events []jepsenOp) ([]eventPair, error) {
	pending := map[int]int{} // process → index into events of its invocation
	var pairs []eventPair
	for i := range events {
		e := &events[i]
		if e.typ == model.OpInvoke {
			if j, ok := pending[e.process]; ok {
				return nil, lineErr(e.line, "process %d invoked again before its invocation on line %d completed", e.process, events[j].line)
			}
			pending[e.process] = i
			pairs = append(pairs, eventPair{i, -1})
			continue
		}
		j, ok := pending[e.process]
		if !ok {
			return nil, lineErr(e.line, "%s completion for process %d without an invocation", e.typ, e.process)
		}
		if events[j].f != e.f {
			return nil, lineErr(e.line, "completion :%s for process %d does not match its invocation :%s on line %d", e.f, e.process, events[j].f, events[j].line)
		}
		delete(pending, e.process)
		for k := len(pairs) - 1; k >= 0; k-- {
			if pairs[k].inv == j {
				pairs[k].comp = i
				break
			}
		}
	}
	return pairs, nil
}

// pairOps converts one paired operation into model ops: its micro-ops,
// sharing a Txn when there are several, after the rebalance its
// completion reported, if any.
func (c *jepsenConv) pairOps(events []jepsenOp, p eventPair) ([]model.Op, error) {
	inv := &events[p.inv]
	op := model.Op{Process: inv.process, Type: model.OpInvoke, Time: inv.time, Offset: model.NoOffset}
	val := inv.value
	hasVal := inv.hasVal
	line := inv.line
	if p.comp >= 0 {
		comp := &events[p.comp]
		op.Type, op.End, op.Error = comp.typ, comp.time, comp.err
		if op.End < op.Time {
			return nil, lineErr(comp.line, "completes at %d, before its invocation at %d", op.End, op.Time)
		}
		if comp.hasVal {
			val, hasVal, line = comp.value, true, comp.line
		}
	}
	if p.comp >= 0 && inv.hasVal && events[p.comp].hasVal {
		if err := sameShape(inv.f, inv.value, events[p.comp].value, events[p.comp].line, inv.line); err != nil {
			return nil, err
		}
	}
	ops, err := c.ops(op, inv.f, val, hasVal, line)
	if err != nil {
		return nil, err
	}
	// One Jepsen operation that did several things stays one
	// operation: its micro-ops share a Txn (model.Op.Txn).
	if inv.f == "txn" || len(ops) > 1 {
		c.lastTxn++
		for k := range ops {
			ops[k].Txn = c.lastTxn
		}
	}
	if p.comp >= 0 && len(events[p.comp].rebalanced) > 0 {
		rb, err := c.rebalance(inv, events[p.comp].rebalanced)
		if err != nil {
			return nil, err
		}
		ops = append([]model.Op{rb}, ops...)
	}
	return ops, nil
}

// rebalance is the rebalance a completion of inv reported: the
// partitions of keys, gained.
func (c *jepsenConv) rebalance(inv *jepsenOp, keys []ednValue) (model.Op, error) {
	rb := model.Op{Process: inv.process, Type: model.OpOK, F: model.FRebalance, Time: inv.time, End: inv.time, Offset: model.NoOffset}
	for _, k := range keys {
		tp, err := c.tp(k)
		if err != nil {
			return model.Op{}, err
		}
		if !slices.Contains(rb.Gained, tp) {
			rb.Gained = append(rb.Gained, tp)
		}
	}
	slices.SortFunc(rb.Gained, model.TopicPartition.Compare)
	return rb, nil
}

// ops converts one paired operation into model ops.
func (c *jepsenConv) ops(op model.Op, f string, val ednValue, hasVal bool, line int) ([]model.Op, error) {
	switch f {
	case "assign", "subscribe":
		op.F = model.FAssign
		if f == "subscribe" {
			op.F = model.FSubscribe
		}
		if hasVal && val.kind != ednNil {
			if val.kind != ednVector && val.kind != ednList && val.kind != ednSet {
				return nil, lineErr(line, ":%s value %s: want a vector of keys", f, val)
			}
			for _, k := range val.items {
				tp, err := c.tp(k)
				if err != nil {
					return nil, err
				}
				op.Partitions = append(op.Partitions, tp)
			}
		}
		return []model.Op{op}, nil
	case "send", "poll", "txn":
	default:
		return nil, nil
	}
	if !hasVal || val.kind == ednNil {
		return nil, nil
	}
	if val.kind != ednVector && val.kind != ednList {
		return nil, lineErr(line, ":%s value %s: want a vector of micro-operations", f, val)
	}
	var out []model.Op
	for _, mop := range val.items {
		if (mop.kind != ednVector && mop.kind != ednList) || len(mop.items) == 0 || mop.items[0].kind != ednKeyword {
			return nil, lineErr(mop.line, "micro-operation %s: want [:send k v] or [:poll ...]", mop)
		}
		o := op
		switch mop.items[0].s {
		case "send":
			m, err := c.send(o, mop)
			if err != nil {
				return nil, err
			}
			out = append(out, m)
		case "poll":
			m, err := c.poll(o, mop)
			if err != nil {
				return nil, err
			}
			out = append(out, m)
		default:
			return nil, lineErr(mop.line, "unknown micro-operation :%s", mop.items[0].s)
		}
	}
	return out, nil
}

func (c *jepsenConv) send(o model.Op, mop ednValue) (model.Op, error) {
	if len(mop.items) != 3 {
		return o, lineErr(mop.line, "%s: want [:send key value]", mop)
	}
	o.F = model.FSend
	tp, err := c.tp(mop.items[1])
	if err != nil {
		return o, err
	}
	o.TP = tp
	v := mop.items[2]
	offset := model.NoOffset
	if v.kind == ednVector || v.kind == ednList {
		if len(v.items) != 2 {
			return o, lineErr(v.line, "%s: want [offset value]", v)
		}
		switch off := v.items[0]; off.kind {
		case ednInt:
			if off.i < 0 {
				return o, lineErr(off.line, "negative offset %d", off.i)
			}
			offset = model.Offset(off.i)
		case ednNil:
		default:
			return o, lineErr(off.line, "offset %s: want an integer or nil", off)
		}
		v = v.items[1]
	}
	if o.Value, err = jepsenValue(v); err != nil {
		return o, err
	}
	// The outcome stays the operation's: an info send that reports an
	// offset is still indeterminate until a read proves it committed, and
	// a failed one wrote nothing (kafka.clj must-have-committed?). The
	// offset is kept for the checkers to weigh.
	if o.Type != model.OpInvoke {
		o.Offset = offset
	}
	return o, nil
}

func (c *jepsenConv) poll(o model.Op, mop ednValue) (model.Op, error) {
	o.F = model.FPoll
	if len(mop.items) == 1 {
		return o, nil // an invocation, or a poll that returned nothing
	}
	if len(mop.items) != 2 || (mop.items[1].kind != ednMap && mop.items[1].kind != ednNil) {
		return o, lineErr(mop.line, "%s: want [:poll {key [[offset value] ...]}]", mop)
	}
	m := mop.items[1]
	for j := 0; j+1 < len(m.items); j += 2 {
		tp, err := c.tp(m.items[j])
		if err != nil {
			return o, err
		}
		pairs := m.items[j+1]
		if pairs.kind != ednVector && pairs.kind != ednList {
			return o, lineErr(pairs.line, "records of key %s: want a vector of [offset value]", m.items[j])
		}
		pr := model.PartitionRecords{TP: tp}
		for _, p := range pairs.items {
			if (p.kind != ednVector && p.kind != ednList) || len(p.items) != 2 || p.items[0].kind != ednInt || p.items[0].i < 0 {
				return o, lineErr(p.line, "record %s: want [offset value] with a non-negative offset", p)
			}
			v, err := jepsenValue(p.items[1])
			if err != nil {
				return o, err
			}
			pr.Records = append(pr.Records, model.OffsetValue{Offset: model.Offset(p.items[0].i), Value: v})
		}
		// Two keys may not map to one partition, but a map may repeat a key
		// after EDN normalisation; merge rather than reject.
		merged := false
		for k := range o.Records {
			if o.Records[k].TP == tp {
				o.Records[k].Records = append(o.Records[k].Records, pr.Records...)
				merged = true
			}
		}
		if !merged {
			o.Records = append(o.Records, pr)
		}
	}
	model.SortRecords(o.Records)
	return o, nil
}

// sameShape checks that a completion's micro-operations are the ones its
// invocation asked for, in order: [:send k v] completes as [:send k ...]
// and [:poll] as [:poll ...]. A completion that says otherwise is not the
// same operation (Jepsen's client completes the value it was invoked with).
func sameShape(f string, inv, comp ednValue, compLine, invLine int) error {
	if f != "send" && f != "poll" && f != "txn" {
		return nil
	}
	isVec := func(v ednValue) bool { return v.kind == ednVector || v.kind == ednList }
	if !isVec(inv) || !isVec(comp) {
		return nil // ops reports a value that is not a vector
	}
	if len(inv.items) != len(comp.items) {
		return lineErr(compLine, "completion has %d micro-operations, its invocation on line %d has %d", len(comp.items), invLine, len(inv.items))
	}
	for k := range inv.items {
		a, b := inv.items[k], comp.items[k]
		if !isVec(a) || !isVec(b) || len(a.items) == 0 || len(b.items) == 0 || a.items[0].kind != ednKeyword || b.items[0].kind != ednKeyword {
			continue // ops reports a malformed micro-operation
		}
		if a.items[0].s != b.items[0].s {
			return lineErr(compLine, "micro-operation %d completes as :%s, but line %d invoked :%s", k, b.items[0].s, invLine, a.items[0].s)
		}
		if a.items[0].s == "send" && len(a.items) == 3 && len(b.items) == 3 && a.items[1].String() != b.items[1].String() {
			return lineErr(compLine, "micro-operation %d sends to key %s, but line %d invoked it for key %s", k, b.items[1], invLine, a.items[1])
		}
	}
	return nil
}
