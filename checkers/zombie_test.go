package checkers

import (
	"strings"
	"testing"

	"kafkasim/model"
)

// zombieHistory is a zombie consumer: process 1 owns t0 in generation 1 and
// is cut from its coordinator; process 2 gains t0 in generation 2 at 6ms
// and reads "b"; process 1, not knowing, reads "b" too at 9ms, and hears it
// lost t0 at 20ms. between are ops of process 1 placed before its read.
func zombieHistory(between ...model.Op) model.History {
	ops := []model.Op{
		sendOK(5, t0, "a", 0, 0, 1),
		sendOK(5, t0, "b", 1, 0, 1),
		subscribe(1, 0, "g", "t"),
		subscribe(2, 0, "g", "t"),
		rebalance(1, 2, "g", 1, tps(t0), nil),
		poll(1, 3, 4, recs(t0, 0, "a")),
		rebalance(2, 6, "g", 2, tps(t0), nil),
		poll(2, 7, 7, recs(t0, 1, "b")),
	}
	ops = append(ops, between...)
	ops = append(ops, poll(1, 9, 10, recs(t0, 1, "b")), rebalance(1, 20, "g", 2, nil, tps(t0)))
	return hist(ops...)
}

func commitFail(p, call, ret int, group string, tp model.TopicPartition, o int64, err string) model.Op {
	op := commit(p, call, ret, group, tp, o)
	op.Type, op.Error = model.OpFail, err
	return op
}

// An expelled member that has not heard from its coordinator reads what
// its successor reads: Kafka's protocol allows it, so the double owner and
// the record delivered twice are allowed findings that say why, and the
// run is valid. A commit refused by a broker that is not (yet) the
// coordinator, or one that timed out, is not hearing from it.
func TestZombieReadBeforeHearingIsAllowed(t *testing.T) {
	for name, between := range map[string][]model.Op{
		"silent":          nil,
		"not-coordinator": {commitFail(1, 7, 8, "g", t0, 1, "NOT_COORDINATOR")},
		"timed-out":       {{Process: 1, Type: model.OpInfo, F: model.FCommit, Time: ms(7), End: ms(8), Offset: model.NoOffset, Group: "g", Error: "timeout"}},
	} {
		t.Run(name, func(t *testing.T) {
			r := check(t, Input{History: zombieHistory(between...)}, Options{Subscribe: true})
			v := mustFind(t, r, DoubleOwner, t0)
			if v.Error || v.Promise != PromiseZombie || !strings.Contains(v.Detail, "expelled without hearing from its coordinator") || !strings.Contains(v.Detail, "polled records of it during the overlap (ops ") {
				t.Fatalf("want an allowed zombie finding naming the old owner's poll, got %+v", v)
			}
			d := mustFind(t, r, GroupDuplicate, t0, 1, 1)
			if d.Error || d.Promise != PromiseZombie {
				t.Fatalf("the record read by both owners: want an allowed finding, got %+v", d)
			}
			if r.Valid != ValidOK {
				t.Fatalf("want ok, got %s:\n%s", r.Valid, dump(r))
			}
		})
	}
}

// The same reads are errors when the old owner had heard from its
// coordinator first (its commit refused with ILLEGAL_GENERATION, or a
// rebalance of another partition), when the consumers promise to fence
// themselves, and when the old owner was not of an older generation.
func TestZombieReadAfterHearingIsAnError(t *testing.T) {
	for name, tc := range map[string]struct {
		between []model.Op
		opts    Options
		want    string
	}{
		"illegal-generation": {between: []model.Op{commitFail(1, 7, 8, "g", t0, 1, "ILLEGAL_GENERATION")}, want: "after it had heard from the coordinator"},
		"rebalance":          {between: []model.Op{rebalance(1, 8, "g", 1, nil, nil)}, want: "after it had heard from the coordinator"},
		"self-fencing":       {opts: Options{SelfFencing: true}, want: "consumer.self.fencing should have stopped it"},
	} {
		t.Run(name, func(t *testing.T) {
			tc.opts.Subscribe = true
			r := check(t, Input{History: zombieHistory(tc.between...)}, tc.opts)
			v := mustFind(t, r, DoubleOwner, t0)
			if !v.Error || !strings.Contains(v.Detail, tc.want) {
				t.Fatalf("want an error saying %q, got %+v", tc.want, v)
			}
			if d := mustFind(t, r, GroupDuplicate, t0, 1, 1); !d.Error {
				t.Fatalf("the record read by both owners: want an error, got %+v", d)
			}
			if r.Valid != ValidViolation {
				t.Fatalf("want a violation, got %s", r.Valid)
			}
		})
	}
	// Not an older generation: the old owner's hold is of generation 2,
	// as the new owner's (and the coordinator gave one partition to two
	// members in one generation).
	h := zombieHistory()
	for i := range h {
		if h[i].Process == 1 && h[i].F == model.FRebalance && len(h[i].Gained) > 0 {
			h[i].Generation = 2
		}
	}
	r := check(t, Input{History: h}, Options{Subscribe: true})
	found := false
	for _, v := range find(r, DoubleOwner) {
		if strings.Contains(v.Detail, "not older") {
			found = v.Error
		}
	}
	if !found {
		t.Fatalf("an overlap within one generation with reads: want an error saying not older:\n%s", dump(r))
	}
}

// Two expelled members at once: process 1 (generation 1) and process 2
// (generation 2) both keep reading while process 3 owns the partition in
// generation 3. A record read by 1 and 3 is allowed too, although the
// overlap named in the double-owner report is 2's, the hold reaching
// furthest.
func TestZombieReadsOfTwoExpelledMembersAreAllowed(t *testing.T) {
	h := hist(
		sendOK(5, t0, "c", 0, 0, 1),
		subscribe(1, 0, "g", "t"),
		subscribe(2, 0, "g", "t"),
		subscribe(3, 0, "g", "t"),
		rebalance(1, 2, "g", 1, tps(t0), nil),
		rebalance(2, 6, "g", 2, tps(t0), nil),
		rebalance(3, 12, "g", 3, tps(t0), nil),
		poll(3, 13, 13, recs(t0, 0, "c")),
		poll(1, 14, 14, recs(t0, 0, "c")),
		rebalance(1, 40, "g", 1, nil, tps(t0)),
		rebalance(2, 50, "g", 2, nil, tps(t0)),
	)
	r := check(t, Input{History: h}, Options{Subscribe: true})
	if d := mustFind(t, r, GroupDuplicate, t0, 0, 0); d.Error || d.Promise != PromiseZombie {
		t.Fatalf("want an allowed duplicate, got %+v", d)
	}
	if r.Valid != ValidOK {
		t.Fatalf("want ok, got %s:\n%s", r.Valid, dump(r))
	}
}
