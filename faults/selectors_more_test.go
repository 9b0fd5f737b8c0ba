package faults

import (
	"math/rand/v2"
	"strings"
	"testing"

	"kafkasim/model"
)

// richWorld is toyWorld with groups and assignments, for member-of,
// follower-of and out-of-isr.
type richWorld struct {
	*toyWorld
	members  map[string][]model.BrokerID
	replicas []model.BrokerID // of tp0
}

func (w richWorld) MembersOf(g string) []model.BrokerID { return w.members[g] }
func (w richWorld) Replicas(tp model.TopicPartition) []model.BrokerID {
	if tp != tp0 {
		return nil
	}
	return w.replicas
}

func TestNewSelectorsParseAndPrint(t *testing.T) {
	for text, want := range map[string]Selector{
		"member-of g":        MemberOf("g", 0),
		"member-of g #2":     MemberOf("g", 2),
		"follower-of t/0":    FollowerOf(tp0, 0),
		"follower-of t/0 #1": FollowerOf(tp0, 1),
		"out-of-isr t/0":     OutOfISR(tp0),
	} {
		got, err := ParseSelector(text)
		if err != nil || got != want || got.String() != text {
			t.Errorf("%q: %+v %v, printed %q", text, got, err, got.String())
		}
	}
	for _, bad := range []string{"member-of", "member-of g #0", "member-of g #x", "follower-of", "follower-of t/0 #-1", "out-of-isr", "#2"} {
		if _, err := ParseSelector(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	// In a schedule line, #k is an index and '# ' still starts a comment.
	s, err := Parse(strings.NewReader("from 1s to 2s crash member-of g #2 # the second member\n"), "f")
	if err != nil || len(s) != 1 || s[0].Target != MemberOf("g", 2) {
		t.Fatalf("%v %v", s, err)
	}
	if s, err := Parse(strings.NewReader("from 1s to 2s crash 2 #comment\n"), "f"); err != nil || s[0].Target != Node(2) {
		t.Fatalf("a comment right after a word: %v %v", s, err)
	}
}

// TestNewSelectorsResolve: each picks what it names, and names nobody,
// with the reason, where there is nothing to pick (the nearby case).
func TestNewSelectorsResolve(t *testing.T) {
	tw := newToyWorld(t, 1)
	leader, isr := model.BrokerID(2), []model.BrokerID{2, 3}
	tw.leader = func() model.BrokerID { return leader }
	tw.isr = func() []model.BrokerID { return isr }
	w := richWorld{toyWorld: tw, members: map[string][]model.BrokerID{"g": {7, 8, 9}}, replicas: []model.BrokerID{1, 2, 3}}
	r := rand.New(rand.NewPCG(1, 2))
	check := func(sel Selector, want model.BrokerID, why string) {
		t.Helper()
		got, reason := sel.resolve(w, r)
		if got != want || (want == model.NoBroker && !strings.Contains(reason, why)) {
			t.Errorf("%v: %v (%q), want %v (%q)", sel, got, reason, want, why)
		}
	}
	check(MemberOf("g", 2), 8, "")
	check(MemberOf("g", 4), model.NoBroker, "no member #4")
	check(MemberOf("h", 0), model.NoBroker, "group h has no member")
	check(FollowerOf(tp0, 1), 1, "") // replicas 1, 2, 3 with leader 2 left out
	check(FollowerOf(tp0, 2), 3, "")
	check(FollowerOf(tp0, 3), model.NoBroker, "no follower #3")
	check(OutOfISR(tp0), 1, "")
	isr = []model.BrokerID{1, 2, 3}
	check(OutOfISR(tp0), model.NoBroker, "every replica in its ISR")
	for range 20 {
		if got, _ := MemberOf("g", 0).resolve(w, r); got < 7 || got > 9 {
			t.Fatalf("member-of g drew %v", got)
		}
		if got, _ := FollowerOf(tp0, 0).resolve(w, r); got == leader {
			t.Fatalf("follower-of drew the leader")
		}
	}
	// A world without groups or assignments has nobody to pick.
	if got, _ := MemberOf("g", 1).resolve(tw, r); got != model.NoBroker {
		t.Errorf("member-of in a world without groups: %v", got)
	}
}

// TestTriggeredFaultLines: "on EVENT T/P after T [for W]" parses, prints
// back as written, and is refused where the fault it becomes would be.
func TestTriggeredFaultLines(t *testing.T) {
	for _, line := range []string{
		"on ack t/0 after 10s crash leader-of t/0",
		"on election t/0 after 1s for 5s partition isolate leader-of t/0",
		"on alter-partition t/0 after 2s for 500ms clog leader-of t/0 follower-of t/0 #1 +200ms",
	} {
		s, err := Parse(strings.NewReader(line+"\n"), "f")
		if err != nil || len(s) != 1 || s[0].On == nil || s[0].String() != line {
			t.Errorf("%q: %v, printed %v", line, err, s)
		}
	}
	for line, want := range map[string]string{
		"on commit t/0 after 1s crash 1":           "want an event",
		"on ack t/0 at 1s crash 1":                 `want "after T"`,
		"on ack t/0 after 1s for 0s crash 1":       "longer than 0",
		"on ack t/0 after 1s for 2s restart 1":     "instantaneous",
		"on ack t/0 after 1s clog 1 2 +5ms":        "needs a window",
		"on ack t0 after 1s crash 1":               "on ack",
		"on election t/0 after 1s to 2s crash 1":   `unknown fault "to"`,
		"on election t/0 after 1s for 2s crash 1,": "unexpected",
	} {
		if _, err := Parse(strings.NewReader(line+"\n"), "f"); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", line, err, want)
		}
	}
	// A world that reports no events cannot take one.
	s := MustParse("f", "on ack t/0 after 1s crash 1\n")
	if _, err := Apply(newToyWorld(t, 1), s); err == nil || !strings.Contains(err.Error(), "reports no events") {
		t.Errorf("Apply: %v", err)
	}
}
