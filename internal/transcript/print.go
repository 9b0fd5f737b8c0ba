package transcript

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"

	"kafkasim/sim"
)

// filter says which delivered messages are printed: those whose first
// word is in kinds (every kind when kinds is nil) and, with between set,
// only those whose two ends are both in it. "disconnect" names a broken
// connection, printed only when named: a node that retries a peer that is
// down hears of it at every retry.
type filter struct {
	kinds   []string
	between []sim.NodeID
}

const disconnectKind = "disconnect"

// newFilter reads "show [KIND ...] [between=(X, Y, ...)]"; "show all"
// prints everything again.
func (d *Driver) newFilter(t *testing.T, td *datadriven.TestData) filter {
	t.Helper()
	var f filter
	for _, a := range td.CmdArgs {
		switch {
		case a.Key == "between":
			f.between = d.resolve(t, a.Vals)
		case a.Key == "all":
			return filter{}
		case len(a.Vals) == 0:
			f.kinds = append(f.kinds, a.Key)
		default:
			t.Fatalf("%s: show: unknown argument %q", td.Pos, a.Key)
		}
	}
	return f
}

func (f filter) wants(kind string, a, b sim.NodeID) bool {
	if (f.kinds != nil || kind == disconnectKind) && !slices.Contains(f.kinds, kind) {
		return false
	}
	return f.between == nil || slices.Contains(f.between, a) && slices.Contains(f.between, b)
}

// messageString is a message's one-line form (its String method, which
// every model message has).
func messageString(m sim.Message) string { return fmt.Sprint(m) }

// kind is a message's first word: its request or response name.
func kind(m sim.Message) string {
	s := messageString(m)
	if i := strings.IndexByte(s, ' '); i >= 0 {
		return s[:i]
	}
	return s
}

// flush prints the deliveries and broken connections the kernel traced
// since the last flush that the filter wants, each with its virtual time
// when timed, after indent.
func (d *Driver) flush(timed bool, indent string) {
	events := d.Sim.Trace()
	for _, e := range events[d.traced:] {
		var s string
		switch e.Kind {
		case "deliver":
			s = d.delivery(e)
		case "disconnect":
			s = d.disconnect(e)
		}
		if s == "" {
			continue
		}
		if timed {
			s = e.Time.String() + " " + s
		}
		d.line(indent, s)
	}
	d.traced = len(events)
}

// skip passes over what was traced since the last flush.
func (d *Driver) skip() { d.traced = len(d.Sim.Trace()) }

// delivery reads a deliver event, whose detail the kernel writes as
// "n1->n2 MESSAGE", and renders it with the nodes' names.
func (d *Driver) delivery(e sim.TraceEvent) string {
	ends, msg, _ := strings.Cut(e.Detail, " ")
	a, b, _ := strings.Cut(ends, "->")
	from, to := nodeID(a), nodeID(b)
	word, _, _ := strings.Cut(msg, " ")
	if !d.show.wants(word, from, to) {
		return ""
	}
	return d.Sim.Name(from) + "->" + d.Sim.Name(to) + " " + msg
}

// disconnect reads a disconnect event: the node e.Node learnt that its
// connection to the peer in the detail broke.
func (d *Driver) disconnect(e sim.TraceEvent) string {
	peer := nodeID(e.Detail)
	if !d.show.wants(disconnectKind, e.Node, peer) {
		return ""
	}
	return d.Sim.Name(e.Node) + " lost its connection to " + d.Sim.Name(peer)
}

// nodeID parses a sim.NodeID as it prints ("n7").
func nodeID(s string) sim.NodeID {
	n, err := strconv.Atoi(strings.TrimPrefix(s, "n"))
	if err != nil {
		panic(fmt.Sprintf("transcript: trace names node %q", s))
	}
	return sim.NodeID(n)
}
