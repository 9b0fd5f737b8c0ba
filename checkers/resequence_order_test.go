package checkers

import (
	"strings"
	"testing"

	"kafkasim/model"
)

// staleAckHistory is the chaos run's path (chaos seed 90001531): process
// 0 sends "a" and then "b"; "a"'s first attempt is refused by a broker no
// longer leader, "b"'s goes to the new leader and lands at offset 0. The
// bump at 40ms re-sequences both (a: e0 s0 to e1 s0, b: e0 s1 to e1 s1);
// "b"'s attempt sent as e0 s1 answers and acknowledges it at 0, and "a",
// resent as e1 s0, lands at 1. bAckedAs is what "b"'s ok records of the
// attempt that answered; aAckedAs "a"'s.
func staleAckHistory(aAckedAs, bAckedAs *model.SentAs) model.History {
	a := model.Op{Process: 0, Type: model.OpOK, F: model.FSend, Time: 0, End: ms(60), TP: t0, Value: "a", Offset: 1,
		Resequenced: []model.Resequence{{At: ms(40), FromEpoch: 0, FromSeq: 0, ToEpoch: 1, ToSeq: 0}}, AckedAs: aAckedAs}
	b := model.Op{Process: 0, Type: model.OpOK, F: model.FSend, Time: ms(1), End: ms(55), TP: t0, Value: "b", Offset: 0,
		Resequenced: []model.Resequence{{At: ms(40), FromEpoch: 0, FromSeq: 1, ToEpoch: 1, ToSeq: 1}}, AckedAs: bAckedAs}
	return hist(a, b, poll(1, 70, 71, recs(t0, 0, "b", 1, "a")))
}

// The later send acknowledged by its pre-bump attempt and the earlier one
// acknowledged under the epoch the bump moved it to: the inversion is the
// producer's own, allowed, and says why.
func TestStaleAckInversionIsAllowed(t *testing.T) {
	r := check(t, Input{History: staleAckHistory(nil, &model.SentAs{Epoch: 0, Seq: 1})}, idempotent)
	o := mustFind(t, r, NonmonotonicSend, t0, 1, 0)
	if o.Error || o.Promise != PromiseResequenceOrder || !strings.Contains(o.Detail, "acknowledged by its attempt sent as epoch 0 sequence 1") {
		t.Fatalf("want the inversion allowed, naming the attempt, got %+v", o)
	}
	if r.Valid != ValidOK {
		t.Fatalf("want ok, got %s:\n%s", r.Valid, dump(r))
	}
}

// Without the proof that the later send's answer was its old epoch's, or
// with the earlier one acknowledged under no newer epoch, or without
// idempotence, the same inversion stays an error.
func TestStaleAckInversionWithoutProofIsAnError(t *testing.T) {
	for name, tc := range map[string]struct {
		h    model.History
		opts Options
	}{
		"later acknowledged under its last identity":    {staleAckHistory(nil, nil), idempotent},
		"earlier acknowledged under the same old epoch": {staleAckHistory(&model.SentAs{Epoch: 0, Seq: 0}, &model.SentAs{Epoch: 0, Seq: 1}), idempotent},
		"not idempotent": {staleAckHistory(nil, &model.SentAs{Epoch: 0, Seq: 1}), Options{MaxInFlight: 1}},
	} {
		t.Run(name, func(t *testing.T) {
			r := check(t, Input{History: tc.h}, tc.opts)
			if o := mustFind(t, r, NonmonotonicSend, t0, 1, 0); !o.Error {
				t.Fatalf("want an error, got %+v", o)
			}
		})
	}
}
