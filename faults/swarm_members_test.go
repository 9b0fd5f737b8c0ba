package faults

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"kafkasim/model"
)

// The swarm draws the membership operations only when named, on top of
// the very same faults: add-broker names each spare once, in id order;
// decommission names distinct original brokers and leaves at least the
// replication factor; every line parses back as written.
func TestSwarmDrawsMembershipOperations(t *testing.T) {
	shape := fiveBrokers
	shape.Spares = []model.BrokerID{6, 7}
	shape.ReplicationFactor = 3
	drawn := map[Kind]int{}
	for seed := uint64(1); seed <= 200; seed++ {
		faultsOnly := Swarm(seed, allSwarm(), shape)
		o := allSwarm()
		o.Kinds = slices.Concat(SwarmKinds(), SwarmMemberOperations())
		with := Swarm(seed, o, shape)
		var rest Schedule
		var added, gone []model.BrokerID
		for _, f := range with {
			switch f.Kind {
			case KindAddBroker:
				added = append(added, f.Target.Node)
			case KindDecommission:
				gone = append(gone, f.Target.Node)
			default:
				rest = append(rest, f)
				continue
			}
			drawn[f.Kind]++
		}
		if !reflect.DeepEqual(rest, faultsOnly) {
			t.Fatalf("seed %d: the membership operations moved the faults", seed)
		}
		if !slices.Equal(added, shape.Spares[:len(added)]) {
			t.Fatalf("seed %d: added %v, not the spares in order", seed, added)
		}
		if len(gone) > len(shape.Brokers)-3 || len(slices.Compact(slices.Sorted(slices.Values(gone)))) != len(gone) {
			t.Fatalf("seed %d: decommissioned %v", seed, gone)
		}
		for _, id := range gone {
			if !slices.Contains(shape.Brokers, id) {
				t.Fatalf("seed %d: decommissioned %v, not an original broker", seed, id)
			}
		}
		back, err := Parse(strings.NewReader(with.String()), "swarm")
		if err != nil || !reflect.DeepEqual(back, with) {
			t.Fatalf("seed %d: does not parse back (%v)", seed, err)
		}
	}
	if drawn[KindAddBroker] == 0 || drawn[KindDecommission] == 0 {
		t.Fatalf("drawn: %v", drawn)
	}
}

// The lines' form: one fixed broker id, nothing else, at only.
func TestMembershipLines(t *testing.T) {
	for _, c := range []struct{ line, err string }{
		{"at 20s add-broker b4", ""},
		{"at 20s decommission 2", ""},
		{"at 20s add-broker", "bad broker"},
		{"at 20s decommission leader-of t/0", "bad broker"},
		{"at 20s decommission b2 b3", ""},
		{"from 20s to 30s add-broker b4", "instantaneous"},
	} {
		s, err := Parse(strings.NewReader(c.line+"\n"), "f")
		switch {
		case c.err == "" && c.line == "at 20s decommission b2 b3":
			if err == nil {
				t.Errorf("%q parsed: %v", c.line, s)
			}
		case c.err == "" && err != nil:
			t.Errorf("%q: %v", c.line, err)
		case c.err == "" && s[0].String() != strings.Replace(c.line, "decommission 2", "decommission b2", 1):
			t.Errorf("%q prints as %q", c.line, s[0])
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%q: got %v, want %q", c.line, err, c.err)
		}
	}
}

// The rolling-restart line: a positive number of rounds up to ten, at
// only, nothing else.
func TestRollingRestartLines(t *testing.T) {
	for _, c := range []struct{ line, err string }{
		{"at 5s rolling-restart 2", ""},
		{"at 5s rolling-restart 0", "bad rounds"},
		{"at 5s rolling-restart 11", "want 1 to 10 rounds"},
		{"at 5s rolling-restart", "bad rounds"},
		{"from 5s to 9s rolling-restart 1", "instantaneous"},
		{"at 5s rolling-restart b1", "bad rounds"},
	} {
		s, err := Parse(strings.NewReader(c.line+"\n"), "f")
		switch {
		case c.err == "" && (err != nil || s[0].String() != c.line):
			t.Errorf("%q: %v %v", c.line, s, err)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%q: got %v, want %q", c.line, err, c.err)
		}
	}
}
