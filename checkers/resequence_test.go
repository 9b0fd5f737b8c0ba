package checkers

import (
	"strings"
	"testing"

	"kafkasim/model"
)

// resequenced marks a send as re-sequenced by an epoch bump at ms at, from
// epoch 0 sequence from to epoch 1 sequence to.
func resequenced(op model.Op, at int, from, to int32) model.Op {
	op.Resequenced = append(op.Resequenced, model.Resequence{At: ms(at), FromEpoch: 0, FromSeq: from, ToEpoch: 1, ToSeq: to})
	return op
}

// bumpHistory is the path Kafka's idempotent producer takes: process 0's
// send "a" is written at offset 0 on a leader whose answer never comes;
// "d" and "e" go to the new leader (offsets 1, 2) and are acknowledged;
// the producer bumps its epoch at 40ms, re-sequences "a" from 0, and the
// broker appends it again at 3, which is the answer the send gets. a is
// the send of "a", to be marked or not; more are extra ops.
func bumpHistory(a model.Op, more ...model.Op) model.History {
	ops := []model.Op{
		a,
		sendOK(0, t0, "d", 1, 10, 20),
		sendOK(0, t0, "e", 2, 11, 21),
	}
	ops = append(ops, more...)
	ops = append(ops, poll(1, 60, 61, recs(t0, 0, "a", 1, "d", 2, "e", 3, "a")))
	return hist(ops...)
}

var idempotent = Options{Idempotent: true, MaxInFlight: 5}

// The duplicate the history shows the producer writing, and the send
// order its rewrite inverts, are allowed findings that say why; the run
// is valid.
func TestResequencedDuplicateIsAllowed(t *testing.T) {
	r := check(t, Input{History: bumpHistory(resequenced(sendOK(0, t0, "a", 3, 0, 50), 40, 0, 0))}, idempotent)
	d := mustFind(t, r, Duplicate, t0, 0, 3)
	if d.Error || d.Promise != PromiseResequence || !strings.Contains(d.Detail, "epoch bump at 40ms re-sequenced it from epoch 0 sequence 0 to epoch 1 sequence 0") {
		t.Fatalf("want an allowed duplicate naming the bump, got %+v", d)
	}
	o := mustFind(t, r, NonmonotonicSend, t0, 3, 1)
	if o.Error || o.Promise != PromiseResequence {
		t.Fatalf("want the inverted send order allowed, got %+v", o)
	}
	if r.Valid != ValidOK {
		t.Fatalf("want ok, got %s:\n%s", r.Valid, dump(r))
	}
}

// Every nearby history without the proof stays an error.
func TestDuplicateWithoutResequenceProofIsAnError(t *testing.T) {
	plain := sendOK(0, t0, "a", 3, 0, 50)
	for name, tc := range map[string]struct {
		h    model.History
		offs []int64
		why  string
	}{
		// Jepsen's histories, and a producer that never bumped.
		"no evidence": {h: bumpHistory(plain), offs: []int64{0, 3}},
		// One rewrite accounts for two copies, not three.
		"third copy": {
			h: hist(resequenced(sendOK(0, t0, "a", 3, 0, 50), 40, 0, 0), sendOK(0, t0, "d", 1, 10, 20), sendOK(0, t0, "e", 2, 11, 21),
				poll(1, 60, 61, recs(t0, 0, "a", 1, "d", 2, "e", 3, "a", 4, "a"))),
			offs: []int64{0, 3, 4}, why: "accounts for 2 copies, not 3",
		},
		// The rewrite is another record's.
		"evidence on another value": {
			h:    bumpHistory(plain, resequenced(sendInfo(0, t0, "c", 12, 55), 40, 1, 1)),
			offs: []int64{0, 3},
		},
		// The answer is the rewrite's, so it cannot name the first copy.
		"acknowledged at the first copy": {
			h:    bumpHistory(resequenced(sendOK(0, t0, "a", 0, 0, 50), 40, 0, 0)),
			offs: []int64{0, 3}, why: "not at the last copy 3",
		},
		// The rewrite was on another partition.
		"evidence on another partition": {
			h: hist(resequenced(model.Op{Process: 0, Type: model.OpInfo, F: model.FSend, Time: 0, End: ms(50), TP: t1, Value: "a", Offset: model.NoOffset, Error: "timeout"}, 40, 0, 0),
				sendOK(0, t0, "a", 0, 0, 5), sendOK(0, t0, "d", 1, 10, 20), poll(1, 60, 61, recs(t0, 0, "a", 1, "d", 2, "a"))),
			offs: []int64{0, 2},
		},
	} {
		t.Run(name, func(t *testing.T) {
			r := check(t, Input{History: tc.h}, idempotent)
			d := mustFind(t, r, Duplicate, t0, tc.offs...)
			if !d.Error || d.Promise != PromiseIdempotence || !strings.Contains(d.Detail, tc.why) {
				t.Fatalf("want an error under %q naming %q, got %+v", PromiseIdempotence, tc.why, d)
			}
			if r.Valid != ValidViolation {
				t.Fatalf("want a violation, got %s:\n%s", r.Valid, dump(r))
			}
		})
	}
}

// A send that was still in flight at the bump would have been rewritten
// after the re-sequenced one (or drained after it under the new epoch): if
// it landed before, the rewrite does not explain the inversion.
func TestResequenceDoesNotExcuseALaterSendStillInFlight(t *testing.T) {
	h := hist(
		resequenced(sendOK(0, t0, "a", 2, 0, 50), 40, 0, 0),
		sendOK(0, t0, "d", 1, 10, 45), // answered after the bump at 40ms
		poll(1, 60, 61, recs(t0, 0, "a", 1, "d", 2, "a")),
	)
	r := check(t, Input{History: h}, idempotent)
	o := mustFind(t, r, NonmonotonicSend, t0, 2, 1)
	if !o.Error || o.Promise != PromiseSendOrder {
		t.Fatalf("want the inversion an error, got %+v", o)
	}
	if d := mustFind(t, r, Duplicate, t0, 0, 2); d.Error {
		t.Fatalf("the duplicate itself is the rewrite's, want it allowed: %+v", d)
	}
}

// Without idempotence a duplicate is allowed for its own reason, whatever
// the history says about rewrites.
func TestResequenceLeavesNonIdempotentDuplicatesAlone(t *testing.T) {
	r := check(t, Input{History: bumpHistory(resequenced(sendOK(0, t0, "a", 3, 0, 50), 40, 0, 0))}, Options{MaxInFlight: 5})
	d := mustFind(t, r, Duplicate, t0, 0, 3)
	if d.Error || d.Promise == PromiseResequence {
		t.Fatalf("want the non-idempotent allowance, got %+v", d)
	}
}

// groupCopiesHistory: the log holds "a" at 0 and, rewritten, at 3; process
// 1, which heard its generation end (so no zombie allowance applies), reads
// the first copy after process 2 gained t0, and process 2 reads the second.
func groupCopiesHistory(a model.Op) model.History {
	return hist(
		a,
		sendOK(5, t0, "d", 1, 10, 20),
		sendOK(5, t0, "e", 2, 11, 21),
		subscribe(1, 0, "g", "t"),
		subscribe(2, 0, "g", "t"),
		rebalance(1, 2, "g", 1, tps(t0), nil),
		rebalance(2, 6, "g", 2, tps(t0), nil),
		commitFail(1, 6, 7, "g", t0, 0, "ILLEGAL_GENERATION"),
		poll(1, 8, 9, recs(t0, 0, "a", 1, "d", 2, "e")),
		poll(2, 60, 61, recs(t0, 3, "a")),
		rebalance(1, 70, "g", 2, nil, tps(t0)),
	)
}

// Two members that each read one of the rewrite's two copies received the
// record twice because the log holds it twice: allowed when the history
// proves the rewrite, an error when it does not.
func TestGroupDuplicateOfResequencedCopies(t *testing.T) {
	opts := Options{Idempotent: true, MaxInFlight: 5, Subscribe: true}
	r := check(t, Input{History: groupCopiesHistory(resequenced(sendOK(5, t0, "a", 3, 0, 50), 40, 0, 0))}, opts)
	d := mustFind(t, r, GroupDuplicate, t0, 0, 3)
	if d.Error || d.Promise != PromiseResequence || !strings.Contains(d.Detail, "its copy at offset 3") {
		t.Fatalf("want the copies' delivery allowed, got %+v", d)
	}
	r = check(t, Input{History: groupCopiesHistory(sendOK(5, t0, "a", 3, 0, 50))}, opts)
	if d := mustFind(t, r, GroupDuplicate, t0, 0, 3); !d.Error || d.Promise != PromiseGroupDelivery {
		t.Fatalf("without the rewrite in the history, want an error, got %+v", d)
	}
}
