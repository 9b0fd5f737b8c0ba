package scenarios

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"

	"kafkasim/checkers"
	"kafkasim/model"
)

// A run's history written with checkers.WriteJepsenEDN and read back with
// checkers.ReadJepsenEDN is judged as the history itself is, by the
// checks that read only what the EDN holds (issue 22): the same verdict,
// findings (anomaly, partition renamed, severity, Jepsen key, offsets,
// values, operations renumbered) and porcupine verdicts. Excluded, named
// in exportExcluded, are the findings that read what the format loses
// (docs/checkers.md): the group checks, the pipeline's exactly-once
// check, poll-skip and nonmonotonic-poll on a partition a seek or reset
// moved, and duplicate and nonmonotonic-send of a re-sequenced record.
// kafka-17754-delayed-endtxn is here so that the comparison has findings
// (aborted-read) to compare. sameOps fails first if the writer drops or
// mangles an op.
func TestJepsenEDNExportJudgedTheSame(t *testing.T) {
	for _, c := range []struct {
		scenario string
		seeds    []uint64
	}{
		{"txn-chaos", []uint64{1, 2, 3}},
		{"eos-pipeline", []uint64{1, 2, 3}},
		// 22220000's consumers reset positions, 22220019's producers
		// re-sequence records: the findings the EDN cannot excuse.
		{"chaos", []uint64{1, 22220000, 22220019}},
		{"kafka-17754-delayed-endtxn", []uint64{1, 2}},
		{"group-rebalance", []uint64{1}},
	} {
		for _, seed := range c.seeds {
			t.Run(fmt.Sprintf("%s/%d", c.scenario, seed), func(t *testing.T) {
				res := runScenario(t, c.scenario, seed)
				var buf bytes.Buffer
				if err := checkers.WriteJepsenEDN(&buf, res.History); err != nil {
					t.Fatal(err)
				}
				back, err := checkers.ReadJepsenEDN(&buf, "history.edn")
				if err != nil {
					t.Fatal(err)
				}
				toBack := sameOps(t, res.History, back)
				opts := res.CheckOptions
				opts.LinearizabilityBudget = checkers.DefaultLinearizabilityCap
				want := checkers.Check(checkers.Input{History: res.History}, opts)
				got := checkers.Check(checkers.Input{History: back}, opts)
				rename := jepsenRename(res.History)
				if w, g := findings(want, rename, toBack, lossesOf(res.History, nil)), findings(got, nil, nil, lossesOf(res.History, rename)); !slices.Equal(w, g) {
					var only []string
					for _, x := range w {
						if !slices.Contains(g, x) {
							only = append(only, "run only: "+x)
						}
					}
					for _, x := range g {
						if !slices.Contains(w, x) {
							only = append(only, "export only: "+x)
						}
					}
					t.Fatalf("findings differ (%d, %d):\n%s", len(w), len(g), strings.Join(only, "\n"))
				}
			})
		}
	}
}

// exportExcluded reports whether a finding comes from a check that reads
// what the EDN does not hold: the group checks, the pipeline's
// exactly-once output, the order of a consumer's operations (poll-skip,
// nonmonotonic-poll) on a partition that a seek or reset moved, and a
// duplicate or nonmonotonic-send of a record an idempotent producer
// re-sequenced (model.Op.Resequenced, the excuse for its second copy),
// since the EDN holds no seek, reset or re-sequencing.
func exportExcluded(v *checkers.Violation, lost *exportLosses) bool {
	switch v.Anomaly {
	case checkers.ExactlyOnceOutput:
		return true
	case checkers.PollSkip, checkers.NonmonotonicPoll:
		return lost.moved[v.Partition]
	case checkers.Duplicate, checkers.NonmonotonicSend:
		return slices.ContainsFunc(v.Values, func(val string) bool { return lost.resequenced[val+"@"+v.Partition.String()] })
	}
	return v.Checker == checkers.CheckerGroups
}

// exportLosses are what the EDN loses that excuses a finding: the
// partitions a seek or reset moved, and the records ("value@partition")
// an epoch bump re-sequenced, named as the judged history names them.
type exportLosses struct {
	moved       map[model.TopicPartition]bool
	resequenced map[string]bool
}

// lossesOf are h's losses, partitions renamed by rename when given.
func lossesOf(h model.History, rename map[model.TopicPartition]model.TopicPartition) *exportLosses {
	l := &exportLosses{moved: map[model.TopicPartition]bool{}, resequenced: map[string]bool{}}
	name := func(tp model.TopicPartition) model.TopicPartition {
		if rename != nil {
			return rename[tp]
		}
		return tp
	}
	for i := range h {
		op := &h[i]
		if (op.F == model.FSeek || op.F == model.FReset) && op.Type == model.OpOK {
			for _, po := range op.Offsets {
				l.moved[name(po.TP)] = true
			}
		}
		if len(op.Resequenced) > 0 {
			l.resequenced[op.Value+"@"+name(op.TP).String()] = true
		}
	}
	return l
}

// findings are r's verdict and history findings as comparable text, with
// partitions renamed and op indices mapped when given.
func findings(r checkers.Result, rename map[model.TopicPartition]model.TopicPartition, ops []int, lost *exportLosses) []string {
	tp := func(p model.TopicPartition) model.TopicPartition {
		if rename == nil || p.Topic == "" {
			return p
		}
		return rename[p]
	}
	var out []string
	valid := r.Valid
	for _, v := range r.Violations {
		if exportExcluded(&v, lost) {
			continue
		}
		idx := slices.Clone(v.Ops)
		for k := range idx {
			if ops != nil {
				idx[k] = ops[idx[k]]
			}
		}
		out = append(out, fmt.Sprintf("%s/%s %s error=%v jepsen=%s offsets=%v values=%v ops=%v", v.Checker, v.Anomaly, tp(v.Partition), v.Error, v.Jepsen, v.Offsets, v.Values, idx))
	}
	if !slices.ContainsFunc(r.Violations, func(v checkers.Violation) bool { return v.Error && !exportExcluded(&v, lost) }) && valid == checkers.ValidViolation {
		valid = checkers.ValidOK // only excluded findings made it a violation
	}
	for _, c := range r.Linearizability {
		out = append(out, fmt.Sprintf("linearizability %s %s", tp(c.TP), c.Result))
	}
	slices.Sort(out)
	return append([]string{string(valid)}, out...)
}

// jepsenRename maps each partition of h to the one ReadJepsenEDN names
// it after the export: key k, partition k of JepsenTopic.
func jepsenRename(h model.History) map[model.TopicPartition]model.TopicPartition {
	m := map[model.TopicPartition]model.TopicPartition{}
	for k, tp := range checkers.JepsenEDNKeys(h) {
		m[tp] = model.TP(checkers.JepsenTopic, int32(k))
	}
	return m
}

// sameOps checks that back holds every op of h that the EDN can hold, in
// order, with the same fields (partitions renamed), and returns where each
// op of h went in back (-1 for ops the format drops).
func sameOps(t *testing.T, h, back model.History) []int {
	t.Helper()
	rename := jepsenRename(h)
	toBack := make([]int, len(h))
	gained := map[int][]model.TopicPartition{} // process → what its rebalances named (lost or gained), not yet carried
	j, lastTxn := 0, 0
	for i := range h {
		op := h[i]
		toBack[i] = -1
		if op.F == model.FRebalance && op.Type == model.OpOK {
			for _, tp := range append(slices.Clone(op.Lost), op.Gained...) {
				gained[op.Process] = append(gained[op.Process], rename[tp])
			}
		}
		if op.F == model.FRebalance || op.F == model.FCommit || op.F == model.FSeek || op.F == model.FReset || (op.F == model.FSend && op.TP.Topic == "") {
			continue
		}
		// The first op of an operation comes after the rebalances its
		// completion carries.
		if first := op.Txn == 0 || op.Txn != lastTxn; first && op.Completed() && len(gained[op.Process]) > 0 {
			want := gained[op.Process]
			slices.SortFunc(want, model.TopicPartition.Compare)
			want = slices.Compact(want)
			delete(gained, op.Process)
			if j == len(back) || back[j].F != model.FRebalance || back[j].Process != op.Process || !slices.Equal(back[j].Gained, want) {
				t.Fatalf("op %d (%s): want the rebalance gaining %v before it", i, op.String(), want)
			}
			j++
		}
		lastTxn = op.Txn
		if j == len(back) {
			t.Fatalf("op %d (%s) missing from the export", i, op.String())
		}
		got := back[j]
		want := exportedOp(op, rename, h)
		if got.Txn > 0 != (op.Txn > 0) {
			t.Fatalf("op %d: Txn %d came back as %d", i, op.Txn, got.Txn)
		}
		got.Index, got.Txn, want.Txn = 0, 0, 0
		if g, w := fmt.Sprintf("%+v", got), fmt.Sprintf("%+v", want); g != w {
			t.Fatalf("op %d came back different:\nwant %s\ngot  %s", i, w, g)
		}
		toBack[i] = j
		j++
	}
	if j < len(back) {
		t.Fatalf("export has an op the history has not: %s", back[j].String())
	}
	return toBack
}

// exportedOp is op as the EDN holds it.
func exportedOp(op model.Op, rename map[model.TopicPartition]model.TopicPartition, h model.History) model.Op {
	out := model.Op{Process: op.Process, Type: op.Type, F: op.F, Time: op.Time, Error: op.Error, Offset: model.NoOffset}
	if op.Completed() {
		out.End = op.End
	}
	switch op.F {
	case model.FSend:
		out.TP, out.Value = rename[op.TP], op.Value
		if op.Completed() {
			out.Offset = op.Offset
		}
	case model.FPoll:
		for _, pr := range op.Records {
			out.Records = append(out.Records, model.PartitionRecords{TP: rename[pr.TP], Records: pr.Records})
		}
	case model.FAssign, model.FSubscribe:
		for _, tp := range checkers.JepsenEDNKeys(h) {
			if slices.Contains(op.Partitions, tp) || slices.Contains(op.Topics, tp.Topic) {
				out.Partitions = append(out.Partitions, rename[tp])
			}
		}
	}
	return out
}
