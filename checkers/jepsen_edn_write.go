package checkers

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"kafkasim/model"
)

// WriteJepsenEDN writes h as Jepsen's Kafka workload (jepsen.tests.kafka)
// writes history.edn, so that a simulated run can be judged by the tools
// that read Jepsen's histories, and by ReadJepsenEDN, which reads it back.
//
// Every operation is an invocation line and a completion line paired by
// process, with :index, :time (ns of virtual time), :type, :process, :f
// and :value; a completion with an error carries it as :error. An
// operation of one op is :send, :poll, :assign or :subscribe; the ops of
// one model.Op.Txn are one :txn. Micro-operations are as the workload's
// client writes them: [:send k v] invoked and [:send k [offset v]]
// completed (a send without an offset completes as [:send k v]), [:poll]
// invoked and [:poll {k [[offset v] ...]}] completed. Values are EDN
// strings, which ReadJepsenEDN reads back as the same text. An operation
// still running when the history ended has its invocation only.
//
// Keys are integers: key k is the k-th partition of the history in
// partition order (JepsenEDNKeys), said again in comments at the top of
// the file. ReadJepsenEDN reads key k as partition k of topic "jepsen", so
// the partitions come back one for one, renamed.
//
// kafkasim's clients pipeline (a producer has several sends in flight),
// which a Jepsen process, one operation at a time, cannot: a time-ordered
// file would pair a process's invocations with the wrong completions. The
// writer therefore writes each completion right after its invocation, in
// the history's invocation order; :time keeps the real times, but the
// lines are not in time order, so a tool that takes line order for real
// time (Jepsen's :index) sees operations as shorter than they were.
//
// What the format cannot hold is lost: topics (every key is one partition
// of "jepsen"), record keys, consumer groups, generations and commits,
// seeks and position resets, a rebalance's generation and time, and an
// idempotent producer's re-sequenced sends (model.Op.Resequenced,
// AckedAs). A rebalance becomes entries of the :rebalance-log of its
// process's next completed operation, {:type :revoked, :keys [...]} for
// what it lost and {:type :assigned, :keys [...]} for what it gained, as
// Jepsen's client journals the rebalances an operation went through
// (logging-rebalance-listener); ReadJepsenEDN, as kafka.clj, takes both
// for keys the rebalance named. A rebalance with no later completed
// operation of its process, and a send that never learnt its partition,
// are dropped. Without them a reader cannot run the group checks
// (CheckerGroups), the exactly-once check of a pipeline's output (it
// tells input from output by topic), or the excuses a reset or a
// re-sequenced send give; and nothing that reads replica logs or
// observations, which a history does not hold.
func WriteJepsenEDN(w io.Writer, h model.History) error {
	jw := &jepsenWriter{w: bufio.NewWriter(w), key: map[model.TopicPartition]int{}, rebalances: map[int][]string{}}
	keys := JepsenEDNKeys(h)
	for k, tp := range keys {
		jw.key[tp] = k
		fmt.Fprintf(jw.w, "; key %d is %s\n", k, tp)
	}
	jw.topicKeys = map[string][]int{}
	for k, tp := range keys {
		jw.topicKeys[tp.Topic] = append(jw.topicKeys[tp.Topic], k)
	}
	for i := 0; i < len(h); {
		n := 1
		for h[i].Txn > 0 && i+n < len(h) && h[i+n].Txn == h[i].Txn {
			n++
		}
		jw.operation(h[i : i+n])
		i += n
	}
	return jw.w.Flush()
}

// JepsenEDNKeys are the partitions of h in partition order: WriteJepsenEDN
// writes partition keys[k] as key k. A partition counts when an op sends
// to it, polls it, assigns it, or gains or loses it in a rebalance.
func JepsenEDNKeys(h model.History) []model.TopicPartition {
	seen := map[model.TopicPartition]bool{}
	add := func(tps ...model.TopicPartition) {
		for _, tp := range tps {
			if tp.Topic != "" {
				seen[tp] = true
			}
		}
	}
	for i := range h {
		op := &h[i]
		add(op.TP)
		for _, pr := range op.Records {
			add(pr.TP)
		}
		add(op.Partitions...)
		add(op.Gained...)
		add(op.Lost...)
	}
	keys := make([]model.TopicPartition, 0, len(seen))
	for tp := range seen {
		keys = append(keys, tp)
	}
	slices.SortFunc(keys, model.TopicPartition.Compare)
	return keys
}

type jepsenWriter struct {
	w         *bufio.Writer
	key       map[model.TopicPartition]int
	topicKeys map[string][]int // topic → its partitions' keys, ascending
	// rebalances: process → the rebalance-log entries of its rebalances
	// not yet reported by a completion.
	rebalances map[int][]string
	index      int // the next line's :index
}

// operation writes the ops of one operation (one op, or one Txn's).
func (jw *jepsenWriter) operation(ops model.History) {
	op := &ops[0]
	var f, inv, comp string
	switch {
	case op.F == model.FRebalance:
		if op.Type == model.OpOK {
			jw.rebalance(op.Process, "revoked", op.Lost)
			jw.rebalance(op.Process, "assigned", op.Gained)
		}
		return
	case op.Txn > 0:
		f = "txn"
	case op.F == model.FSend || op.F == model.FPoll:
		f = string(op.F)
	case op.F == model.FAssign || op.F == model.FSubscribe:
		f = string(op.F)
		inv = jw.assigned(op)
		comp = inv
	default:
		return // commit, seek, reset: Jepsen's workload has no such operation
	}
	if f == "txn" || f == "send" || f == "poll" {
		var ib, cb strings.Builder
		ib.WriteByte('[')
		cb.WriteByte('[')
		for k := range ops {
			if ops[k].F == model.FSend && ops[k].TP.Topic == "" {
				continue // a send that never learnt its partition has no key
			}
			if ib.Len() > 1 {
				ib.WriteByte(' ')
				cb.WriteByte(' ')
			}
			jw.micro(&ib, &cb, &ops[k])
		}
		if ib.Len() == 1 {
			return
		}
		ib.WriteByte(']')
		cb.WriteByte(']')
		inv, comp = ib.String(), cb.String()
	}
	jw.line(model.OpInvoke, f, op.Process, int64(op.Time), inv, "", "")
	if !op.Completed() {
		return
	}
	rebalanced := ""
	if evs := jw.rebalances[op.Process]; len(evs) > 0 {
		rebalanced = "[" + strings.Join(evs, " ") + "]"
		delete(jw.rebalances, op.Process)
	}
	jw.line(op.Type, f, op.Process, int64(op.End), comp, op.Error, rebalanced)
}

// rebalance notes a rebalance event of process, as Jepsen's
// logging-rebalance-listener journals onPartitionsRevoked (:revoked) and
// onPartitionsAssigned (:assigned), with the partitions as keys.
func (jw *jepsenWriter) rebalance(process int, typ string, tps []model.TopicPartition) {
	if len(tps) == 0 {
		return
	}
	ks := make([]int, len(tps))
	for i, tp := range tps {
		ks[i] = jw.key[tp]
	}
	jw.rebalances[process] = append(jw.rebalances[process], "{:type :"+typ+", :keys "+ednInts(ks)+"}")
}

// micro appends one op's micro-operation, invoked to ib and completed to
// cb.
func (jw *jepsenWriter) micro(ib, cb *strings.Builder, op *model.Op) {
	if op.F == model.FSend {
		k := strconv.Itoa(jw.key[op.TP])
		v := ednQuote(op.Value)
		ib.WriteString("[:send " + k + " " + v + "]")
		if op.Offset == model.NoOffset {
			cb.WriteString("[:send " + k + " " + v + "]")
		} else {
			cb.WriteString("[:send " + k + " [" + strconv.FormatInt(int64(op.Offset), 10) + " " + v + "]]")
		}
		return
	}
	ib.WriteString("[:poll]")
	if !op.Completed() || op.Type != model.OpOK && len(op.Records) == 0 {
		cb.WriteString("[:poll]")
		return
	}
	cb.WriteString("[:poll {")
	for j, pr := range op.Records {
		if j > 0 {
			cb.WriteString(", ")
		}
		cb.WriteString(strconv.Itoa(jw.key[pr.TP]) + " [")
		for r, rec := range pr.Records {
			if r > 0 {
				cb.WriteByte(' ')
			}
			cb.WriteString("[" + strconv.FormatInt(int64(rec.Offset), 10) + " " + ednQuote(rec.Value) + "]")
		}
		cb.WriteByte(']')
	}
	cb.WriteString("}]")
}

// assigned is an assign's or subscribe's keys: its partitions and, for a
// subscription to topics, every partition of those topics in the history
// (Jepsen's workload subscribes to the topics of the keys it names).
func (jw *jepsenWriter) assigned(op *model.Op) string {
	var ks []int
	for _, tp := range op.Partitions {
		ks = append(ks, jw.key[tp])
	}
	for _, t := range op.Topics {
		ks = append(ks, jw.topicKeys[t]...)
	}
	slices.Sort(ks)
	return ednInts(slices.Compact(ks))
}

// line writes one event.
func (jw *jepsenWriter) line(t model.OpType, f string, process int, time int64, value, errName, rebalanced string) {
	fmt.Fprintf(jw.w, "{:index %d, :type :%s, :f :%s, :process %d, :time %d", jw.index, t, f, process, time)
	jw.index++
	if value != "" {
		jw.w.WriteString(", :value " + value)
	}
	if errName != "" {
		jw.w.WriteString(", :error " + ednQuote(errName))
	}
	if rebalanced != "" {
		jw.w.WriteString(", :rebalance-log " + rebalanced)
	}
	jw.w.WriteString("}\n")
}

func ednInts(ks []int) string {
	s := make([]string, len(ks))
	for i, k := range ks {
		s[i] = strconv.Itoa(k)
	}
	return "[" + strings.Join(s, " ") + "]"
}

// ednQuote quotes s with the escapes the EDN reader (edn.go) takes back.
func ednQuote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
