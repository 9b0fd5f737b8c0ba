package faults

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"kafkasim/model"
)

// canonical is a schedule file in Format's own form: one line of every
// kind and of every selector, so that Format(Parse(canonical)) must give
// it back byte for byte.
const canonical = `at 0s crash b2
at 1s power-loss leader-of t/0
at 1s shutdown isr-follower orders.v2/11
at 2s restart b2
from 2s to 3.5s pause controller
at 4s resume b100
from 4s to 1m0s partition isolate leader-of t/0
from 5s to 6s partition isolate b3 from brokers
from 5s to 6s partition isolate random-broker from all
from 6s to 7s partition halves
from 6s to 7s partition bridge
from 6s to 7s partition ring
at 7s partition oneway b1 b2
from 7s to 8s partition b1, b2 | b3, controller
from 7s to 8s partition leader-of t/0 | isr-follower t/0 | coordinator-of g-1
at 9s heal
at 9s reset b1 b2
from 9s to 10s clog b1 leader-of t/0 +200ms
from 9s to 10s latency coordinator-of g +1.5s
at 10s skew b1 -5s
from 10s to 11s skew b2 +250ms
from 11s to 12s drift b3 +0.001
at 11s drift b3 -0.25
at 12s resync b3
from 12s to 13s sync-latency b1 200ms
at 13s sync-latency b2 0s
`

func TestParseFormatRoundTrip(t *testing.T) {
	s, err := Parse(strings.NewReader(canonical), "canonical.faults")
	if err != nil {
		t.Fatal(err)
	}
	if got := s.String(); got != canonical {
		t.Fatalf("Format(Parse(x)) differs from x:\n%s\nwant:\n%s", got, canonical)
	}
	again, err := Parse(strings.NewReader(s.String()), "again")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(again, s) {
		t.Fatalf("Parse(Format(s)) != s:\n%#v\n%#v", again, s)
	}
}

func TestParseReadsWhatItSays(t *testing.T) {
	src := `
# comments and blank lines are skipped

  at 12s crash leader-of t/0   # trailing comment
from 20s to 40s partition isolate controller
from 1m to 1m0.5s partition b1,b2|b3
from 1m1s to 1m2s clog 1 2 300ms
from 1m2s to 1m3s drift b3 0.5
`
	got, err := Parse(strings.NewReader(src), "x")
	if err != nil {
		t.Fatal(err)
	}
	want := Schedule{
		{At: 12 * time.Second, Kind: KindCrash, Target: LeaderOf(model.TP("t", 0))},
		{At: 20 * time.Second, End: 40 * time.Second, Kind: KindIsolate, Target: Controller()},
		{At: time.Minute, End: time.Minute + 500*time.Millisecond, Kind: KindSplit,
			Groups: [][]Selector{{Node(1), Node(2)}, {Node(3)}}},
		{At: 61 * time.Second, End: 62 * time.Second, Kind: KindClog, Target: Node(1), Peer: Node(2), Delay: 300 * time.Millisecond},
		{At: 62 * time.Second, End: 63 * time.Second, Kind: KindDrift, Target: Node(3), Rate: 0.5},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got\n%v\nwant\n%v", got, want)
	}
}

func TestParseEmptyIsNoFaults(t *testing.T) {
	s, err := Parse(strings.NewReader("# nothing\n\n"), "empty")
	if err != nil || len(s) != 0 {
		t.Fatalf("got %v, %v; want no faults and no error", s, err)
	}
}

// Every kind of bad input is refused with the file, the line and a reason
// that names the problem.
func TestParseErrorsNameFileAndLine(t *testing.T) {
	cases := []struct {
		name, src string
		line      int
		reason    string // a fragment the reason must contain
	}{
		{"unknown fault", "at 1s explode b1", 1, `unknown fault "explode"`},
		{"unknown fault word partition shape", "at 1s partition star", 1, `bad selector "star"`},
		{"bad selector", "# c\nat 1s crash broker2", 2, `bad selector "broker2"`},
		{"negative node", "at 1s crash b-1", 1, `bad selector "b-1"`},
		{"leader-of without partition", "at 1s crash leader-of", 1, "leader-of needs a topic-partition"},
		{"leader-of bad partition", "at 1s crash leader-of t", 1, `bad selector "leader-of t"`},
		{"illegal topic", "at 1s crash leader-of a$b/0", 1, "topic name"},
		{"missing selector", "at 1s crash", 1, "missing node"},
		{"bad duration", "\n\nat 1x crash b1", 3, `bad duration "1x"`},
		{"missing time", "at", 1, "missing time"},
		{"negative time", "at -1s crash b1", 1, "virtual time starts at 0"},
		{"from not before to", "from 5s to 5s crash b1", 1, "from 5s is not before to 5s"},
		{"from after to", "from 6s to 5s crash b1", 1, "from 6s is not before to 5s"},
		{"missing to", "from 5s crash b1", 1, `want "to"`},
		{"time out of order", "at 5s crash b1\n# gap\nat 4s restart b1", 3, "time out of order"},
		{"window out of order", "from 5s to 9s pause b1\nfrom 4s to 6s pause b2", 2, "time out of order"},
		{"no time word", "crash b1 at 5s", 1, `not "crash"`},
		{"trailing words", "at 1s crash b1 b2", 1, `unexpected "b2"`},
		{"instant-only in a window", "from 1s to 2s restart b1", 1, "restart is instantaneous"},
		{"reset in a window", "from 1s to 2s reset b1 b2", 1, "reset is instantaneous"},
		{"clog needs a window", "at 1s clog b1 b2 +1s", 1, "clog needs a window"},
		{"clog without delay", "from 1s to 2s clog b1 b2", 1, "missing duration"},
		{"clog zero delay", "from 1s to 2s clog b1 b2 +0s", 1, "positive extra delay"},
		{"clog bad delay", "from 1s to 2s clog b1 b2 fast", 1, `bad duration "fast"`},
		{"oneway one node", "at 1s partition oneway b1", 1, "missing node"},
		{"one group", "at 1s partition b1, b2", 1, "groups separated by '|'"},
		{"empty group", "at 1s partition b1 | | b2", 1, "missing node"},
		{"dangling comma", "at 1s partition b1, | b2", 1, "missing node"},
		{"bad scope", "at 1s partition isolate b1 from clients", 1, "want servers, brokers, controllers or all"},
		{"scope on crash", "at 1s crash b1 from brokers", 1, `unexpected "from"`},
		{"drift bad rate", "at 1s drift b1 fast", 1, `bad rate "fast"`},
		{"drift out of range", "at 1s drift b1 -1", 1, "must be in (-1, 1)"},
		{"drift inf", "at 1s drift b1 +Inf", 1, "bad rate"},
		{"sync-latency negative", "at 1s sync-latency b1 -1s", 1, "non-negative"},
		{"heal with node", "at 1s heal b1", 1, `unexpected "b1"`},
		{"partition alone", "at 1s partition", 1, "partition needs a shape"},
		{"long line", "at 1s crash b1 #" + strings.Repeat("x", lineMax), 1, "longer than"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := Parse(strings.NewReader(c.src), "bad.faults")
			if err == nil {
				t.Fatalf("accepted %q as %v", c.src, s)
			}
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %v is not a *ParseError", err)
			}
			if pe.File != "bad.faults" || pe.Line != c.line {
				t.Errorf("error at %s:%d, want bad.faults:%d (%v)", pe.File, pe.Line, c.line, err)
			}
			if !strings.Contains(pe.Reason, c.reason) {
				t.Errorf("reason %q does not mention %q", pe.Reason, c.reason)
			}
			if !strings.HasPrefix(err.Error(), "bad.faults:") {
				t.Errorf("error text %q does not start with the file name", err)
			}
			if s != nil {
				t.Errorf("a refused file still returned faults: %v", s)
			}
		})
	}
}

func TestParseSelector(t *testing.T) {
	good := map[string]Selector{
		"b2":                Node(2),
		"2":                 Node(2),
		"b007":              Node(7),
		"controller":        Controller(),
		"random-broker":     RandomBroker(),
		"leader-of t/0":     LeaderOf(model.TP("t", 0)),
		"isr-follower a/12": ISRFollower(model.TP("a", 12)),
		"coordinator-of g":  CoordinatorOf("g"),
	}
	for text, want := range good {
		got, err := ParseSelector(text)
		if err != nil || got != want {
			t.Errorf("ParseSelector(%q) = %v, %v; want %v", text, got, err, want)
		}
	}
	for _, text := range []string{"", "b", "bx", "+2", "b+2", "n2", "leader-of", "leader-of t/-1", "coordinator-of", "coordinator-of a|b", "b2 b3", "99999999999"} {
		if got, err := ParseSelector(text); err == nil {
			t.Errorf("ParseSelector(%q) accepted %v", text, got)
		}
	}
}

// FuzzParse: no input makes Parse panic, and whatever it accepts
// round-trips: Parse(Format(s)) is s, and Format is then stable.
func FuzzParse(f *testing.F) {
	f.Add(canonical)
	f.Add("at 1s crash b1\n")
	f.Add("from 1s to 2s partition b1, b2 | b3 # x\n")
	f.Add("at 1s drift b1 -0\n")
	f.Add("at 9223372036s skew b1 -2562047h47m16.854775808s\n")
	f.Add("from 1s to 2s crash member-of g #2 # c\nfrom 3s to 4s pause follower-of t/0 #1\nat 5s crash out-of-isr t/0\n")
	f.Add("from 1s to 2s clog follower-of t/0 member-of g #12 +5ms\n")
	f.Add("on ack t/0 after 10s crash leader-of t/0\non election t/0 after 11s for 5s pause 2\non alter-partition t/1 after 12s for 1s partition isolate out-of-isr t/1\n")
	f.Add("from 1s to 2s crash rack r1\nfrom 3s to 4s partition isolate rack az-2 from all\nfrom 5s to 6s clog rack r1 rack r2 +50ms\non ack t/0 after 7s for 2s clog rack r1 b3 +5ms\nat 8s partition rack r1 | rack r2, b3\n")
	f.Fuzz(func(t *testing.T, src string) {
		s, err := Parse(strings.NewReader(src), "fuzz")
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) || pe.Line < 1 {
				t.Fatalf("error %v is not a ParseError with a line", err)
			}
			return
		}
		if err := s.Validate(); err != nil {
			t.Fatalf("parsed schedule does not validate: %v\n%s", err, s)
		}
		text := s.String()
		again, err := Parse(strings.NewReader(text), "formatted")
		if err != nil {
			t.Fatalf("Format output does not parse: %v\n%s", err, text)
		}
		if !reflect.DeepEqual(again, s) {
			t.Fatalf("Parse(Format(s)) != s\n%#v\n%#v", again, s)
		}
		if again.String() != text {
			t.Fatalf("Format not stable:\n%s\n%s", again.String(), text)
		}
	})
}

func TestMustParse(t *testing.T) {
	if got := MustParse("ok", "at 1s crash b1\n"); len(got) != 1 || got[0].Kind != KindCrash {
		t.Fatalf("got %v", got)
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), "script.faults:2:") {
			t.Fatalf("recovered %v, want a panic naming script.faults:2", r)
		}
	}()
	MustParse("script.faults", "at 1s crash b1\nat 2s explode b1\n")
}
