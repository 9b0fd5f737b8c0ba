package transcript

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"

	"kafkasim/sim"
)

// Driver runs one transcript file over one world. The world's Sim must
// record its trace (sim.Config.Record), which is where the Driver reads
// the messages the network delivered: without it a transcript prints no
// message at all.
type Driver struct {
	Sim *sim.Sim

	// held are the messages the nodes wrapped with Hold received and have
	// not been handed yet, in the order they arrived.
	held []held
	show filter
	// traced is how many recorded trace events were printed (or passed
	// over) already.
	traced int
	out    strings.Builder
}

// New makes a Driver for a world. What the world traced before is not
// the transcript's: a world whose nodes Hold wraps makes its Driver
// before it adds them, one that boots first (a cluster run until it is
// ready) after.
func New(s *sim.Sim) *Driver { return &Driver{Sim: s, traced: len(s.Trace())} }

// Step is a test's own transcript command. It returns the command's
// output and whether it knew the command; it may run the world (Do) and
// print (Printf), and the Driver appends what the network delivered
// meanwhile.
type Step func(t *testing.T, td *datadriven.TestData) (string, bool)

// Walk plays every transcript file under dir. A file's first command is
// start, from which build makes the file's world (its arguments are the
// world's settings) and returns its Driver and the world's own steps;
// every later command goes to the Driver's steps first, then to the
// world's. An unknown command fails the test.
func Walk(t *testing.T, dir string, build func(t *testing.T, td *datadriven.TestData) (*Driver, Step)) {
	t.Helper()
	datadriven.Walk(t, dir, func(t *testing.T, path string) {
		var d *Driver
		var local Step
		datadriven.RunTest(t, path, func(t *testing.T, td *datadriven.TestData) string {
			switch {
			case td.Cmd == "start" && d == nil:
				d, local = build(t, td)
				return d.output()
			case d == nil:
				t.Fatalf("%s: a transcript begins with start", td.Pos)
			}
			return d.command(t, td, local)
		})
	})
}

// command runs one transcript command and returns its output.
func (d *Driver) command(t *testing.T, td *datadriven.TestData, local Step) string {
	d.out.Reset()
	if !d.step(t, td) {
		own, ok := local(t, td)
		if !ok {
			t.Fatalf("%s: unknown command %q", td.Pos, td.Cmd)
		}
		d.out.WriteString(own)
		d.flush(false, "")
	}
	return d.output()
}

// output is what the current command printed, "ok" for nothing.
func (d *Driver) output() string {
	if d.out.Len() == 0 {
		return "ok\n"
	}
	return d.out.String()
}

// Printf adds a line of a test's own output, after what the network
// delivered up to now.
func (d *Driver) Printf(format string, args ...any) {
	d.flush(false, "")
	fmt.Fprintf(&d.out, format, args...)
	if !strings.HasSuffix(format, "\n") {
		d.out.WriteByte('\n')
	}
}

// Do runs fn as a harness action at the current virtual time, then
// everything it caused at that instant (zero-latency messages, syncs).
func (d *Driver) Do(name string, fn func()) {
	d.Sim.At(d.Sim.Now(), name, fn)
	d.Sim.Run(d.Sim.Now())
}

// tick runs the world for dur, printing what the network delivered with
// the time it arrived.
func (d *Driver) tick(dur time.Duration) {
	d.Sim.Run(d.Sim.Now() + dur)
	d.flush(true, "")
}

// Node resolves a node by its name in the world (as given to AddNode:
// "b1", "b100", ...).
func (d *Driver) Node(t *testing.T, name string) sim.NodeID {
	t.Helper()
	for _, id := range d.Sim.Nodes() {
		if d.Sim.Name(id) == name {
			return id
		}
	}
	t.Fatalf("transcript: no node named %q", name)
	return 0
}

// nodes resolves every bare argument of td as a node name.
func (d *Driver) nodes(t *testing.T, td *datadriven.TestData) []sim.NodeID {
	t.Helper()
	var ids []sim.NodeID
	for _, a := range td.CmdArgs {
		if len(a.Vals) == 0 {
			ids = append(ids, d.Node(t, a.Key))
		}
	}
	if len(ids) == 0 {
		t.Fatalf("%s: %s names no node", td.Pos, td.Cmd)
	}
	return ids
}

// step runs the commands every world has, and reports whether td was one.
func (d *Driver) step(t *testing.T, td *datadriven.TestData) bool {
	switch td.Cmd {
	case "tick":
		// tick DUR [quiet]: run the clock; quiet prints nothing of it.
		dur := duration(t, td)
		if td.HasArg("quiet") {
			d.Sim.Run(d.Sim.Now() + dur)
			d.skip()
			return true
		}
		d.tick(dur)
	case "deliver":
		d.deliver(d.match(t, td))
	case "stabilize":
		d.stabilize(t, td)
	case "drop":
		d.drop(d.match(t, td))
	case "held":
		for _, h := range d.held {
			d.line("", h.String())
		}
	case "show":
		d.show = d.newFilter(t, td)
	case "crash":
		for _, id := range d.nodes(t, td) {
			d.Do("crash "+d.Sim.Name(id), func() { d.Sim.Crash(id) })
		}
		d.flush(false, "")
	case "restart":
		for _, id := range d.nodes(t, td) {
			d.Do("restart "+d.Sim.Name(id), func() { d.Sim.Restart(id) })
		}
		d.flush(false, "")
	case "partition":
		// partition X [Y ...]: the named nodes keep their links among
		// themselves and lose every link to the others.
		group := d.nodes(t, td)
		var rest []sim.NodeID
		for _, id := range d.Sim.Nodes() {
			if !slices.Contains(group, id) {
				rest = append(rest, id)
			}
		}
		d.Do("partition", func() { d.Sim.Partition(group, rest) })
		d.flush(false, "")
	case "cut":
		// cut X Y [Z ...]: X loses its links to Y, Z, ..., both ways;
		// every other link stays.
		ids := d.nodes(t, td)
		d.Do("cut", func() { d.Sim.Partition(ids[:1], ids[1:]) })
		d.flush(false, "")
	case "heal":
		d.Do("heal", d.Sim.HealAll)
		d.flush(false, "")
	default:
		return false
	}
	return true
}

func duration(t *testing.T, td *datadriven.TestData) time.Duration {
	t.Helper()
	if len(td.CmdArgs) == 0 {
		t.Fatalf("%s: %s needs a duration", td.Pos, td.Cmd)
	}
	dur, err := time.ParseDuration(td.CmdArgs[0].Key)
	if err != nil {
		t.Fatalf("%s: %v", td.Pos, err)
	}
	return dur
}

// line writes one output line.
func (d *Driver) line(indent, s string) {
	d.out.WriteString(indent)
	d.out.WriteString(s)
	d.out.WriteByte('\n')
}
