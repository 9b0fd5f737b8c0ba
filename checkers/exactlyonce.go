package checkers

import (
	"fmt"
	"slices"

	"kafkasim/model"
)

// Exactly-once output (KIP-447): a consume-transform-produce worker reads
// input records and, inside one transaction, writes each one's output
// (model.PipelineOutput: a value naming the input's and the
// transaction), commits the input offsets past them
// (sendOffsetsToTransaction) and commits. Its transactions are the
// history's :txn operations that hold :poll micro-operations. What the
// committed input offsets have passed must have its output exactly once
// in the committed output:
//
//   - missing: an input record below the committed input offset of its
//     partition whose output no committed transaction wrote and no reader
//     saw (the worker skipped it, or committed offsets past what it
//     wrote);
//   - duplicate: an input record with outputs at two places of the
//     committed output (written by two committed transactions);
//   - aborted: an output a reader saw that only aborted transactions
//     wrote.
//
// The committed input offset of a partition is, as the history shows it,
// one past the last input offset a committed (ok) pipeline transaction
// consumed there: the worker commits its consumer's positions, which are
// that. A transaction whose outcome is unknown (info) counts for neither
// side: its outputs count once a reader saw them, and it moves no
// committed offset. The committed output is what committed transactions
// wrote and what readers saw of the output topics.
//
// A history without pipeline transactions has nothing to judge here.

// PromiseExactlyOnce is what a consume-transform-produce pipeline with
// transactions promises.
const PromiseExactlyOnce = "exactly-once (KIP-447): every input record the committed offsets passed has its output once in the committed output, and no aborted transaction's output is visible"

// pipelineOut is what the history says of one output value.
type pipelineOut struct {
	input string // the input value it is the output of
	// at and offsets are where it was written or seen, one entry per
	// place; ops the ops that wrote or read it there.
	at        []model.TopicPartition
	offsets   []model.Offset
	ops       []int
	committed bool // an ok pipeline transaction wrote it
	unknown   bool // an info pipeline transaction wrote it
	written   bool // any pipeline transaction wrote it
}

// place notes that the output is at (tp, o), once per place.
func (p *pipelineOut) place(tp model.TopicPartition, o model.Offset, op int) {
	for i := range p.at {
		if p.at[i] == tp && p.offsets[i] == o {
			return
		}
	}
	p.at, p.offsets, p.ops = append(p.at, tp), append(p.offsets, o), append(p.ops, op)
}

// exactlyOnce judges the history's pipeline transactions.
func exactlyOnce(h model.History) []Violation {
	txns := pipelineTxns(h)
	if len(txns) == 0 {
		return nil
	}
	outTopics := map[string]bool{}
	committedTo := map[model.TopicPartition]model.Offset{} // the committed input offset, by partition
	outs := map[string]*pipelineOut{}                      // by output value
	out := func(v string) *pipelineOut {
		o := outs[v]
		if o == nil {
			in, _ := model.PipelineInput(v)
			o = &pipelineOut{input: in}
			outs[v] = o
		}
		return o
	}
	for _, t := range txns {
		for i := t.from; i < t.to; i++ {
			op := &h[i]
			switch op.F {
			case model.FPoll:
				if op.Type != model.OpOK {
					continue
				}
				for _, pr := range op.Records {
					if n := len(pr.Records); n > 0 {
						committedTo[pr.TP] = max(committedTo[pr.TP], pr.Records[n-1].Offset+1)
					}
				}
			case model.FSend:
				if _, ok := model.PipelineInput(op.Value); !ok {
					continue
				}
				outTopics[op.TP.Topic] = true
				o := out(op.Value)
				o.written = true
				switch op.Type {
				case model.OpOK:
					o.committed = true
					o.place(op.TP, op.Offset, i)
				case model.OpInfo:
					o.unknown = true
				}
			}
		}
	}
	// What readers saw of the output, and every input value known by
	// offset (from any send's acknowledgement or any read).
	inputs := map[model.TopicPartition]map[model.Offset]string{}
	known := func(tp model.TopicPartition, o model.Offset, v string) {
		if committedTo[tp] == 0 || o >= committedTo[tp] {
			return
		}
		if inputs[tp] == nil {
			inputs[tp] = map[model.Offset]string{}
		}
		inputs[tp][o] = v
	}
	for i := range h {
		op := &h[i]
		switch {
		case op.F == model.FSend && op.Type == model.OpOK:
			known(op.TP, op.Offset, op.Value)
		case op.F == model.FPoll && op.Type == model.OpOK:
			for _, pr := range op.Records {
				for _, r := range pr.Records {
					if outTopics[pr.TP.Topic] {
						if _, ok := model.PipelineInput(r.Value); ok {
							out(r.Value).place(pr.TP, r.Offset, i)
						}
						continue
					}
					known(pr.TP, r.Offset, r.Value)
				}
			}
		}
	}
	vs, present := eosSeen(outs)
	return append(vs, eosMissing(inputs, present)...)
}

// pipelineTxn is one pipeline transaction: the history's ops [from, to).
type pipelineTxn struct{ from, to int }

// pipelineTxns finds the :txn operations that consumed (a :poll
// micro-operation) and wrote outputs (model.PipelineOutput values): a
// consume-transform-produce worker's. Jepsen's transactions poll and
// send too, but write values of their own.
func pipelineTxns(h model.History) []pipelineTxn {
	var out []pipelineTxn
	for i := 0; i < len(h); {
		j := i + 1
		if h[i].Txn > 0 {
			for j < len(h) && h[j].Txn == h[i].Txn {
				j++
			}
			polls := slices.ContainsFunc(h[i:j], func(op model.Op) bool { return op.F == model.FPoll })
			outputs := slices.ContainsFunc(h[i:j], func(op model.Op) bool {
				_, ok := model.PipelineInput(op.Value)
				return op.F == model.FSend && ok
			})
			if polls && outputs {
				out = append(out, pipelineTxn{from: i, to: j})
			}
		}
		i = j
	}
	return out
}

// eosMissing: input records the committed offsets passed without their
// output, one finding per input partition. present holds the inputs with
// an output committed or seen.
func eosMissing(inputs map[model.TopicPartition]map[model.Offset]string, present map[string]bool) []Violation {
	tps := make([]model.TopicPartition, 0, len(inputs))
	for tp := range inputs {
		tps = append(tps, tp)
	}
	slices.SortFunc(tps, model.TopicPartition.Compare)
	var vs []Violation
	for _, tp := range tps {
		offs := make([]model.Offset, 0, len(inputs[tp]))
		for o := range inputs[tp] {
			offs = append(offs, o)
		}
		slices.Sort(offs)
		var missing []model.Offset
		var values []string
		for _, o := range offs {
			if v := inputs[tp][o]; !present[v] {
				missing, values = append(missing, o), append(values, v)
			}
		}
		if len(missing) == 0 {
			continue
		}
		vs = append(vs, Violation{
			Checker: CheckerAnomalies, Anomaly: ExactlyOnceOutput, Partition: tp, Offsets: missing, Values: values,
			Error: true, Promise: PromiseExactlyOnce,
			Detail: fmt.Sprintf("missing: %d input records below the committed offset have no committed output (first %s at %d)", len(missing), values[0], missing[0]),
		})
	}
	return vs
}

// eosSeen reports outputs seen that only aborted transactions wrote
// (aborted), and inputs whose outputs are at two places of the committed
// output (duplicate); it returns the inputs with an output committed or
// seen, for eosMissing.
func eosSeen(outs map[string]*pipelineOut) ([]Violation, map[string]bool) {
	values := make([]string, 0, len(outs))
	for v := range outs {
		values = append(values, v)
	}
	slices.Sort(values)
	var vs []Violation
	type places struct {
		values  []string
		at      []model.TopicPartition
		offsets []model.Offset
		ops     []int
	}
	byInput := map[string]*places{}
	var inputs []string
	for _, v := range values {
		o := outs[v]
		if len(o.at) > 0 && o.written && !o.committed && !o.unknown {
			vs = append(vs, Violation{
				Checker: CheckerAnomalies, Anomaly: ExactlyOnceOutput, Partition: o.at[0], Offsets: o.offsets, Values: []string{v}, Ops: o.ops,
				Error: true, Promise: PromiseExactlyOnce,
				Detail: fmt.Sprintf("aborted: %s, the output of %s, was read at %v %d, and only an aborted transaction wrote it", v, o.input, o.at[0], o.offsets[0]),
			})
			continue
		}
		if !o.committed && len(o.at) == 0 {
			continue // aborted, or unknown and never seen
		}
		p := byInput[o.input]
		if p == nil {
			p = &places{}
			byInput[o.input] = p
			inputs = append(inputs, o.input)
		}
		p.values = append(p.values, v)
		p.at = append(p.at, o.at...)
		p.offsets = append(p.offsets, o.offsets...)
		p.ops = append(p.ops, o.ops...)
	}
	slices.Sort(inputs)
	present := make(map[string]bool, len(inputs))
	for _, in := range inputs {
		present[in] = true
		p := byInput[in]
		if len(p.at) < 2 {
			continue
		}
		vs = append(vs, Violation{
			Checker: CheckerAnomalies, Anomaly: ExactlyOnceOutput, Partition: p.at[0], Offsets: p.offsets, Values: p.values, Ops: p.ops,
			Error: true, Promise: PromiseExactlyOnce,
			Detail: fmt.Sprintf("duplicate: the input %s has %d outputs in the committed output (%v at %v)", in, len(p.at), p.values, p.offsets),
		})
	}
	return vs, present
}

// pipelineConsumed are the input values a pipeline's output proves were
// consumed: an output of theirs committed or read. A pipeline
// transaction whose outcome is unknown (its worker crashed after
// EndTxn(commit) went out) has polls without records in the history, yet
// may have committed, offsets included; its outputs read are then the
// only proof that the group received its inputs (groupUnseen), as an
// indeterminate send counts once a read proves it.
func pipelineConsumed(h model.History) map[string]bool {
	var out map[string]bool
	note := func(v string) {
		if in, ok := model.PipelineInput(v); ok {
			if out == nil {
				out = map[string]bool{}
			}
			out[in] = true
		}
	}
	for i := range h {
		op := &h[i]
		switch {
		case op.Type != model.OpOK:
		case op.F == model.FSend && op.Txn > 0:
			note(op.Value)
		case op.F == model.FPoll:
			for _, pr := range op.Records {
				for _, r := range pr.Records {
					note(r.Value)
				}
			}
		}
	}
	return out
}
