package checkers

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"kafkasim/model"
)

// Crafted histories are written with these helpers; times are in
// milliseconds.

var (
	t0 = model.TP("t", 0)
	t1 = model.TP("t", 1)
)

func ms(n int) time.Duration { return time.Duration(n) * time.Millisecond }

// hist numbers the ops by position.
func hist(ops ...model.Op) model.History {
	h := model.History(ops)
	for i := range h {
		h[i].Index = i
	}
	return h
}

func sendOK(p int, tp model.TopicPartition, v string, o int64, call, ret int) model.Op {
	return model.Op{Process: p, Type: model.OpOK, F: model.FSend, Time: ms(call), End: ms(ret), TP: tp, Value: v, Offset: model.Offset(o)}
}

func sendInfo(p int, tp model.TopicPartition, v string, call, ret int) model.Op {
	return model.Op{Process: p, Type: model.OpInfo, F: model.FSend, Time: ms(call), End: ms(ret), TP: tp, Value: v, Offset: model.NoOffset, Error: "timeout"}
}

func sendFail(p int, tp model.TopicPartition, v string, call, ret int) model.Op {
	return model.Op{Process: p, Type: model.OpFail, F: model.FSend, Time: ms(call), End: ms(ret), TP: tp, Value: v, Offset: model.NoOffset, Error: "NOT_LEADER_OR_FOLLOWER"}
}

// poll returns an ok poll; recs are partition records made with recs().
func poll(p, call, ret int, rs ...model.PartitionRecords) model.Op {
	model.SortRecords(rs)
	return model.Op{Process: p, Type: model.OpOK, F: model.FPoll, Time: ms(call), End: ms(ret), Offset: model.NoOffset, Records: rs}
}

// recs builds one partition's records from offset, value pairs.
func recs(tp model.TopicPartition, kv ...any) model.PartitionRecords {
	pr := model.PartitionRecords{TP: tp}
	for i := 0; i < len(kv); i += 2 {
		pr.Records = append(pr.Records, model.OffsetValue{Offset: model.Offset(kv[i].(int)), Value: kv[i+1].(string)})
	}
	return pr
}

func assign(p, at int, tps ...model.TopicPartition) model.Op {
	return model.Op{Process: p, Type: model.OpOK, F: model.FAssign, Time: ms(at), End: ms(at), Offset: model.NoOffset, Partitions: tps}
}

func seek(p, at int, tp model.TopicPartition, o int64) model.Op {
	return model.Op{Process: p, Type: model.OpOK, F: model.FSeek, Time: ms(at), End: ms(at), Offset: model.NoOffset,
		Offsets: []model.PartitionOffset{{TP: tp, Offset: model.Offset(o), From: model.NoOffset}}}
}

func reset(p, at int, tp model.TopicPartition, from, to int64) model.Op {
	return model.Op{Process: p, Type: model.OpOK, F: model.FReset, Time: ms(at), End: ms(at), Offset: model.NoOffset,
		Offsets: []model.PartitionOffset{{TP: tp, Offset: model.Offset(to), From: model.Offset(from)}}}
}

func rebalance(p, at int, group string, gen int, gained, lost []model.TopicPartition) model.Op {
	return model.Op{Process: p, Type: model.OpOK, F: model.FRebalance, Time: ms(at), End: ms(at), Offset: model.NoOffset,
		Group: group, Generation: model.Epoch(gen), Gained: gained, Lost: lost}
}

func commit(p, call, ret int, group string, tp model.TopicPartition, o int64) model.Op {
	return model.Op{Process: p, Type: model.OpOK, F: model.FCommit, Time: ms(call), End: ms(ret), Offset: model.NoOffset,
		Group: group, Offsets: []model.PartitionOffset{{TP: tp, Offset: model.Offset(o), From: model.NoOffset}}}
}

func tps(t ...model.TopicPartition) []model.TopicPartition { return t }

// check runs every checker with a generous porcupine budget.
func check(t *testing.T, in Input, opts Options) Result {
	t.Helper()
	if err := in.History.Validate(); err != nil {
		t.Fatalf("crafted history is invalid: %v", err)
	}
	if opts.LinearizabilityBudget == 0 {
		opts.LinearizabilityBudget = 10 * time.Second
	}
	return Check(in, opts)
}

func find(r Result, anomaly string) []Violation {
	var out []Violation
	for _, v := range r.Violations {
		if v.Anomaly == anomaly {
			out = append(out, v)
		}
	}
	return out
}

// mustFind asserts that r names anomaly on tp with exactly these offsets
// (nil offsets: not compared), and returns that violation.
func mustFind(t *testing.T, r Result, anomaly string, tp model.TopicPartition, offsets ...int64) Violation {
	t.Helper()
	want := make([]model.Offset, len(offsets))
	for i, o := range offsets {
		want[i] = model.Offset(o)
	}
	for _, v := range find(r, anomaly) {
		if v.Partition == tp && (offsets == nil || slices.Equal(v.Offsets, want)) {
			if v.Detail == "" {
				t.Errorf("%s has no detail", anomaly)
			}
			return v
		}
	}
	t.Fatalf("want %s on %s at offsets %v; got:\n%s", anomaly, tp, offsets, dump(r))
	return Violation{}
}

// mustPass asserts that r found nothing at all.
func mustPass(t *testing.T, r Result) {
	t.Helper()
	if r.Valid != ValidOK || len(r.Violations) != 0 {
		t.Fatalf("want a clean pass; got:\n%s", dump(r))
	}
}

func mustNotFind(t *testing.T, r Result, anomaly string) {
	t.Helper()
	if vs := find(r, anomaly); len(vs) > 0 {
		t.Fatalf("want no %s; got:\n%s", anomaly, dump(r))
	}
}

func dump(r Result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "valid=%s notes=%v lin=%v\n", r.Valid, r.Notes, r.Linearizability)
	for _, v := range r.Violations {
		fmt.Fprintf(&b, "  %s offsets=%v values=%v ops=%v\n", v.String(), v.Offsets, v.Values, v.Ops)
	}
	return b.String()
}
