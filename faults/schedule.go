package faults

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"kafkasim/model"
)

// Fault is one thing that goes wrong: what (Kind and its arguments), to
// whom (selectors, resolved when it fires) and when. It is a plain value,
// printable as one line of a schedule file (String), so that a run's faults
// can be read, saved, replayed and shrunk.
type Fault struct {
	// At is when the fault fires, in absolute virtual time of the run.
	At time.Duration
	// End is when a windowed fault heals what At did; 0 for an
	// instantaneous fault ("at"), which heals nothing.
	End  time.Duration
	Kind Kind
	// Target is the node the fault acts on (the first of two for oneway,
	// reset and clog).
	Target Selector
	// Peer is the second node of oneway, reset and clog.
	Peer Selector
	// Groups are the sides of an explicit partition (KindSplit).
	Groups [][]Selector
	// Scope is whom an isolated node is cut off from (KindIsolate).
	Scope Scope
	// Delay is the extra delay of clog and latency, the clock step of
	// skew, and the sync latency of sync-latency.
	Delay time.Duration
	// Rate is drift's clock rate error: 0.01 gains 10 ms every second.
	Rate float64
	// On, if set, makes the fault wait for an event: At is when it arms,
	// and it fires at the first such event at or after At (see Trigger).
	On *Trigger
	// TP is the partition an operation acts on (elect-preferred,
	// elect-unclean, reassign, cancel-reassign).
	TP model.TopicPartition
	// Replicas is a reassignment's target, in preference order.
	Replicas []model.BrokerID
	// Topic, Count, RF and Config are a topic operation's arguments: the
	// topic; create-topic's partitions and add-partitions' new total;
	// create-topic's replication factor; alter-config's name=value.
	Topic  string
	Count  int32
	RF     int32
	Config model.ConfigEntry
}

// The events a fault can wait for (Trigger.Event).
const (
	EventAck            = "ack"             // a write to the partition is acknowledged to its producer
	EventAlterPartition = "alter-partition" // the partition's leader reports a new ISR (an AlterPartition committed)
	EventElection       = "election"        // a broker reports becoming the partition's leader
)

// Events lists the events a Trigger can wait for.
func Events() []string { return []string{EventAck, EventAlterPartition, EventElection} }

// Trigger is "on EVENT T/P after D [for W]": the fault fires at the first
// EVENT on T/P at or after D (the fault's At), in a kernel event of its
// own just after the one that made it, once; with For, it is a window
// of that length from then.
type Trigger struct {
	Event string
	TP    model.TopicPartition
	For   time.Duration
}

// Windowed reports whether f heals at an end time.
func (f Fault) Windowed() bool { return f.End != 0 }

// Schedule is a run's faults, sorted by At (faults with equal At keep
// their order, which is the order they fire in).
type Schedule []Fault

// faultsMax bounds a schedule, like everything else: a file or a swarm
// that asks for more is refused rather than allowed to swamp a run.
const faultsMax = 100_000

// Validate checks one fault for the rules the file format states: known
// kind, the arguments it takes, a window only where it makes sense, from
// before to, amounts in range. It stays one function: a flat list of the
// format's rules, read top to bottom in the order docs/faults.md gives.
func (f Fault) Validate() error {
	if f.On != nil {
		if !slices.Contains(Events(), f.On.Event) {
			return fmt.Errorf("unknown event %q (one of %s)", f.On.Event, strings.Join(Events(), ", "))
		}
		if f.End != 0 {
			return fmt.Errorf("a triggered fault's window is \"for W\", not \"to U\"")
		}
		if f.On.For < 0 {
			return fmt.Errorf("for %v: negative", f.On.For)
		}
		// Checked as the fault it becomes when it fires at At.
		fired := f
		fired.On = nil
		if f.On.For > 0 {
			fired.End = f.At + f.On.For
		}
		return fired.Validate()
	}
	spec, ok := specs[f.Kind]
	if !ok {
		return fmt.Errorf("unknown fault %q", string(f.Kind))
	}
	if f.At < 0 {
		return fmt.Errorf("%s at %v: negative time", f.Kind, f.At)
	}
	if f.Windowed() && f.End <= f.At {
		return fmt.Errorf("from %v is not before to %v", f.At, f.End)
	}
	switch spec.when {
	case whenAtOnly:
		if f.Windowed() {
			return fmt.Errorf("%s is instantaneous: write \"at T %s ...\", not a window", f.Kind, f.Kind)
		}
	case whenWindowOnly:
		if !f.Windowed() {
			return fmt.Errorf("%s needs a window: write \"from T to U %s ...\"", f.Kind, f.Kind)
		}
	}
	if err := f.validateOperation(spec); err != nil {
		return err
	}
	needTarget := spec.args == argsNode || spec.args == argsTwo || spec.args == argsBroker
	if needTarget == f.Target.IsZero() {
		return fmt.Errorf("%s: %s", f.Kind, argsWant(spec.args, "target"))
	}
	if (spec.args == argsTwo) == f.Peer.IsZero() {
		return fmt.Errorf("%s: %s", f.Kind, argsWant(spec.args, "peer"))
	}
	// Clog slows every link from one group to another (a rack's links
	// to another rack); oneway and reset take one node at each end.
	if spec.args == argsTwo && f.Kind != KindClog && (f.Target.Several() || f.Peer.Several()) {
		return fmt.Errorf("%s takes one node at each end, not all-controllers or a rack (clog takes groups)", f.Kind)
	}
	if spec.args == argsGroups {
		if len(f.Groups) < 2 {
			return fmt.Errorf("partition needs at least two groups separated by '|'")
		}
		for _, g := range f.Groups {
			if len(g) == 0 {
				return fmt.Errorf("partition has an empty group")
			}
			for _, s := range g {
				if s.IsZero() {
					return fmt.Errorf("partition group has an empty selector")
				}
			}
		}
	} else if f.Groups != nil {
		return fmt.Errorf("%s takes no groups", f.Kind)
	}
	if f.Scope != ScopeServers && !spec.scope {
		return fmt.Errorf("%s takes no scope", f.Kind)
	}
	if f.Scope > ScopeControllers {
		return fmt.Errorf("%s: unknown scope %d", f.Kind, f.Scope)
	}
	switch spec.amount {
	case amountExtra:
		if f.Delay <= 0 {
			return fmt.Errorf("%s needs a positive extra delay, as in +200ms", f.Kind)
		}
	case amountDelay:
		if f.Delay < 0 {
			return fmt.Errorf("%s needs a non-negative duration", f.Kind)
		}
	case amountSigned:
	default:
		if f.Delay != 0 {
			return fmt.Errorf("%s takes no duration", f.Kind)
		}
	}
	if spec.amount == amountRate {
		// The kernel refuses a clock that stops or runs backwards (rate
		// <= -1); above 1 a clock more than doubles its speed, which no
		// crystal does and which overflows long waits.
		if math.IsNaN(f.Rate) || f.Rate <= -1 || f.Rate >= 1 {
			return fmt.Errorf("drift rate %v must be in (-1, 1)", f.Rate)
		}
	} else if f.Rate != 0 {
		return fmt.Errorf("%s takes no rate", f.Kind)
	}
	return nil
}

func argsWant(a args, field string) string {
	switch a {
	case argsNode:
		if field == "peer" {
			return "takes one node"
		}
		return "needs a node"
	case argsTwo:
		return "needs two nodes"
	case argsBroker:
		if field == "peer" {
			return "takes one broker"
		}
		return "needs a broker, as in b4"
	}
	return "takes no node"
}

// Validate checks every fault, their order (At never goes backwards) and
// the schedule's size.
func (s Schedule) Validate() error {
	if len(s) > faultsMax {
		return fmt.Errorf("%d faults: at most %d", len(s), faultsMax)
	}
	for i, f := range s {
		if err := f.Validate(); err != nil {
			return fmt.Errorf("fault %d (%s): %v", i+1, f, err)
		}
		if i > 0 && f.At < s[i-1].At {
			return fmt.Errorf("fault %d (%s): time out of order: %v after %v", i+1, f, f.At, s[i-1].At)
		}
	}
	return nil
}

// Sorted returns a copy of s sorted by At, keeping the order of faults
// with equal times.
func (s Schedule) Sorted() Schedule {
	out := slices.Clone(s)
	slices.SortStableFunc(out, func(a, b Fault) int { return cmp.Compare(a.At, b.At) })
	return out
}

// clone copies s deeply enough that changing a copy's fault (including its
// groups) leaves s alone.
func (s Schedule) clone() Schedule {
	out := slices.Clone(s)
	for i := range out {
		out[i].Replicas = slices.Clone(out[i].Replicas)
		if out[i].Groups != nil {
			gs := make([][]Selector, len(out[i].Groups))
			for j, g := range out[i].Groups {
				gs[j] = slices.Clone(g)
			}
			out[i].Groups = gs
		}
	}
	return out
}

// windowLength is how long a windowed fault lasts once it fires: To minus
// From, or a triggered fault's "for W" (its End is 0: it fires when the
// event comes, not at At).
func (f Fault) windowLength() time.Duration {
	if f.On != nil {
		return f.On.For
	}
	return f.End - f.At
}
