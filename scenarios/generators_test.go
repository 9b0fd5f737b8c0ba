package scenarios

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"pgregory.net/rapid"

	"kafkasim/checkers"
	"kafkasim/faults"
	"kafkasim/scenarios/fixture"
)

// The generators of the property tests (properties_test.go). Everything a
// case is made of is drawn by rapid, so that rapid shrinks a
// counterexample piece by piece: the cluster shape, the configuration as
// -set settings by Kafka's names, the workload, and the faults as an
// explicit list of schedule-file lines, which rapid shrinks fault by
// fault. Where a choice has a value the catalog uses (three brokers, one
// partition, a send every 20 ms, the safe baseline's settings), that value
// is listed first, because rapid shrinks a choice toward its first value:
// a shrunk case then tends to be one the command line replays.

// runPhases are the lengths of a generated run's safety phase and liveness
// bound. Each generator uses those of a catalog scenario, so that a case
// of the catalog's shape replays with kafkasim run -schedule.
type runPhases struct{ Safety, Liveness time.Duration }

var (
	// longPhases are leader-failover's (and the other fault scenarios').
	longPhases = runPhases{60 * time.Second, 60 * time.Second}
	// shortPhases are baseline's. A case that loses data never converges,
	// and its liveness phase runs to the bound: the must-find properties
	// use the shorter one.
	shortPhases = runPhases{20 * time.Second, 30 * time.Second}
)

// A generated fault's times count from the moment its case's cluster is
// ready, not from the start of the run: a fresh cluster is usually ready
// within 200 ms, but one whose first controller vote splits is ready only
// after an election backoff (1.1 s at seed 2831), and a fault at an
// absolute 1 s would then come before the run's clock (issue 27).
// faultFirst is the earliest start of a generated fault after the
// cluster is ready; a fault starts at least faultTail before the safety
// phase ends (which is Phases.Safety after ready), and a window closes
// at least a second before it. Times are multiples of faultStep, so that
// they read well; the case's start (propCase.start) is the moment the
// cluster is ready rounded up to one, so the placed times are too.
const (
	faultFirst = time.Second
	faultTail  = 4 * time.Second
	faultStep  = 100 * time.Millisecond
)

// propCase is one generated run: everything needed to play it and to
// print it as a command line.
type propCase struct {
	Seed       uint64
	Brokers    int
	Partitions int32
	Interval   time.Duration
	Phases     runPhases
	// Set overrides the safe baseline (scenarios.safe), by Kafka's names,
	// in the order drawn: the -set flags of a replay.
	Set []string
	// Faults are the schedule's lines in time order, their times counted
	// from the case's start (propCase.start); placed puts them in the
	// run's time.
	Faults []faultLine
	// Groups are consumer groups subscribed to topic t, beside the
	// consumer that assigns itself every partition.
	Groups []fixture.GroupSpec
}

// scenario is the case as a Scenario (its faults are given to Run as a
// schedule).
func (c propCase) scenario() Scenario {
	return Scenario{
		Name:          "property",
		Description:   "a generated case of the property tests",
		Spec:          fixture.Spec{Brokers: c.Brokers, Partitions: c.Partitions, Interval: c.Interval, Groups: c.Groups},
		Config:        safe,
		Safety:        c.Phases.Safety,
		LivenessBound: c.Phases.Liveness,
	}
}

// errCannotRun marks a case the harness cannot play as drawn: its cluster
// cannot be built or never becomes ready, so there is no moment to start
// its faults from. A property discards such a case as invalid input
// (propDiscards) instead of failing on it: it says nothing about the
// promise under test, and a failure would pull rapid's shrinking toward
// it and away from any real counterexample.
var errCannotRun = errors.New("the generated case cannot be run")

// start is the moment the case's faults count from: when Run's cluster
// becomes ready (ReadyAt boots the same fixture), rounded up to a
// faultStep so that the placed times read as the drawn ones do.
func (c propCase) start() (time.Duration, error) {
	ready, err := c.ready()
	return startAfter(ready), err
}

// ready is when the case's cluster becomes ready in Run.
func (c propCase) ready() (time.Duration, error) {
	ready, err := ReadyAt(c.scenario(), c.Seed, c.Set)
	if err != nil {
		return 0, fmt.Errorf("%w: %v", errCannotRun, err)
	}
	return ready, nil
}

// startAfter is the first multiple of faultStep at or after ready.
func startAfter(ready time.Duration) time.Duration {
	return (ready + faultStep - 1) / faultStep * faultStep
}

// placed is the case's faults in the run's time: each moved by start.
func (c propCase) placed(start time.Duration) []faultLine {
	out := make([]faultLine, len(c.Faults))
	for i, f := range c.Faults {
		out[i] = f.after(start)
	}
	return out
}

// scheduleText is the case's faults, placed from start, as a schedule
// file.
func (c propCase) scheduleText(start time.Duration) string {
	return scheduleFile(c.placed(start))
}

// scheduleFile writes lines as a schedule file.
func scheduleFile(lines []faultLine) string {
	if len(lines) == 0 {
		return "# no faults\n"
	}
	var b strings.Builder
	for _, f := range lines {
		b.WriteString(f.String() + "\n")
	}
	return b.String()
}

// schedule parses the faults, placed from start, as kafkasim run
// -schedule would.
func (c propCase) schedule(start time.Duration) (faults.Schedule, error) {
	return faults.Parse(strings.NewReader(c.scheduleText(start)), "generated.schedule")
}

// run plays the case, its faults placed from its start. budget is
// porcupine's (negative skips it). An error wrapping errCannotRun means
// the case could not be played at all; any other error is a bug of the
// generators or the harness.
func (c propCase) run(budget time.Duration) (Result, error) {
	start, err := c.start()
	if err != nil {
		return Result{}, err
	}
	sched, err := c.schedule(start)
	if err != nil {
		return Result{}, fmt.Errorf("generated schedule does not parse: %w\n%s", err, c.scheduleText(start))
	}
	return Run(c.scenario(), c.Seed, Options{Set: c.Set, Schedule: &sched, LinearizabilityBudget: budget})
}

// setFlags are the case's settings as command-line flags.
func (c propCase) setFlags() string {
	var b strings.Builder
	for _, kv := range c.Set {
		b.WriteString(" -set " + kv)
	}
	return b.String()
}

// catalogTwin is a catalog scenario that plays this case exactly when
// given its settings and schedule: the same cluster shape, workload,
// phases and configuration. ok is false when the case has a shape the
// catalog does not.
func (c propCase) catalogTwin() (string, bool) {
	mine := c.scenario()
	want, err := ConfigFor(mine, c.Set)
	if err != nil {
		return "", false
	}
	for _, sc := range Catalog() {
		// A shaped scenario (fixture/shape.go), or one that draws its shape
		// (chaosconfig.go), runs another fixture than the case's.
		if sc.Shape != nil || sc.Draw != "" || orDefault(sc.Brokers, 3) != c.Brokers || orDefault(sc.Partitions, 1) != c.Partitions || !slices.Equal(sc.Groups, c.Groups) ||
			orDefault(sc.Interval, 20*time.Millisecond) != c.Interval ||
			sc.Safety != mine.Safety || sc.Until != 0 || sc.LivenessBound != mine.LivenessBound || sc.ProduceUntil != 0 {
			continue
		}
		if got, err := ConfigFor(sc, c.Set); err != nil || got != want {
			continue
		}
		return sc.Name, true
	}
	return "", false
}

func orDefault[N comparable](v, def N) N {
	var zero N
	if v == zero {
		return def
	}
	return v
}

// describe prints the case so that a person can read and replay it: the
// settings as -set flags, the faults as a schedule file, and the command
// that replays it (or, for a shape the catalog lacks, how to replay it
// through the test and rapid's seed).
func (c propCase) describe() string {
	var b strings.Builder
	fmt.Fprintf(&b, "cluster: %d brokers, topic t with %s, a send every %v, seed %d\n", c.Brokers, countOf(int(c.Partitions), "partition"), c.Interval, c.Seed)
	for _, g := range c.Groups {
		fmt.Fprintf(&b, "consumer group %s: %s subscribed to t\n", g.Name, countOf(g.Members, "member"))
	}
	fmt.Fprintf(&b, "settings:%s\n", c.setFlags())
	ready, err := c.ready()
	if err != nil {
		fmt.Fprintf(&b, "faults (%d, times after the cluster is ready, which it never was: %v):\n%s", len(c.Faults), err, indentLines(scheduleFile(c.Faults)))
		return b.String()
	}
	start := startAfter(ready)
	fmt.Fprintf(&b, "schedule file (%d faults; the cluster is ready at %v, the drawn times count from %v):\n%s", len(c.Faults), ready, start, indentLines(c.scheduleText(start)))
	if name, ok := c.catalogTwin(); ok {
		fmt.Fprintf(&b, "replay: save the schedule as FILE, then\n  go run ./cmd/kafkasim run -scenario %s -seed %d -schedule FILE%s\n", name, c.Seed, c.setFlags())
	} else {
		fmt.Fprintf(&b, "replay: no catalog scenario has this shape (%d brokers, %s, a send every %v); rerun the test with the -rapid.seed it prints\n", c.Brokers, countOf(int(c.Partitions), "partition"), c.Interval)
	}
	return b.String()
}

func countOf(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

func indentLines(s string) string {
	lines := strings.SplitAfter(s, "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = "  " + l
		}
	}
	return strings.Join(lines, "")
}

// pick draws one of values; rapid shrinks toward the first.
func drawOne[E any](t *rapid.T, label string, values ...E) E {
	return rapid.SampledFrom(values).Draw(t, label)
}

// near lists [lo, hi] by distance from pref (the smaller first on a tie):
// the order in which a drawn count shrinks.
func byDistance(pref, lo, hi int) []int {
	var out []int
	for v := lo; v <= hi; v++ {
		out = append(out, v)
	}
	slices.SortStableFunc(out, func(a, b int) int {
		da, db := absInt(a-pref), absInt(b-pref)
		if da != db {
			return da - db
		}
		return a - b
	})
	return out
}

func absInt(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

// clusterShape is a cluster shape: brokers, replication factor, min ISR,
// partitions.
type clusterShape struct {
	Brokers    int
	RF, MinISR int
	Partitions int
}

// shapeRange bounds the shapes drawn.
type shapeRange struct {
	RFMin     int // at least 1
	MinISRMin int // at least 1
	MinISRMax int // 0: up to the replication factor
}

// drawShape draws 2 to 4 brokers, a replication factor up to the brokers,
// min.insync.replicas up to the replication factor, and 1 to 3
// partitions, each shrinking toward the catalog's (3, 3, 2, 1).
func drawShape(t *rapid.T, r shapeRange) clusterShape {
	var s clusterShape
	s.Brokers = drawOne(t, "brokers", 3, 2, 4)
	s.RF = drawOne(t, "replication factor", byDistance(3, max(r.RFMin, 1), s.Brokers)...)
	hi := s.RF
	if r.MinISRMax > 0 {
		hi = min(hi, r.MinISRMax)
	}
	s.MinISR = drawOne(t, "min.insync.replicas", byDistance(2, max(r.MinISRMin, 1), hi)...)
	s.Partitions = drawOne(t, "partitions", 1, 2, 3)
	return s
}

// settings are the shape's -set settings.
func (s clusterShape) settings() []string {
	return []string{fmt.Sprintf("default.replication.factor=%d", s.RF), fmt.Sprintf("min.insync.replicas=%d", s.MinISR)}
}

// settingKnob is a setting a generator varies, by its Kafka name, and the values
// it draws from (the first is where it shrinks to).
type settingKnob struct {
	name   string
	values []string
}

// drawSettings draws each knob and returns the settings that differ from
// the safe baseline, in knob order, after the fixed settings (which are
// kept only where they differ from the baseline too).
func drawSettings(t *rapid.T, fixed []string, knobs []settingKnob) []string {
	var all []string
	all = append(all, fixed...)
	for _, k := range knobs {
		all = append(all, k.name+"="+drawOne(t, k.name, k.values...))
	}
	return nonBaseline(all)
}

// nonBaseline keeps the settings that change the safe baseline, the last
// one of a name winning, in the order given.
func nonBaseline(set []string) []string {
	base := safe()
	last := map[string]string{}
	var names []string
	for _, kv := range set {
		name, value, _ := strings.Cut(kv, "=")
		if _, seen := last[name]; !seen {
			names = append(names, name)
		}
		last[name] = value
	}
	var out []string
	for _, name := range names {
		kc := base
		if err := kc.Set(name, last[name]); err != nil {
			panic(fmt.Sprintf("property generator: setting %s=%s: %v", name, last[name], err))
		}
		if kc.Get(name) != base.Get(name) {
			out = append(out, name+"="+last[name])
		}
	}
	return out
}

// target draws a node: one the fault chooses when it fires (the leader or
// an ISR follower of a partition, a random broker, the controller) or a
// fixed broker.
func drawTarget(t *rapid.T, s clusterShape, label string) string {
	switch drawOne(t, label, "leader-of", "isr-follower", "broker", "random-broker", "controller") {
	case "leader-of":
		return fmt.Sprintf("leader-of t/%d", rapid.IntRange(0, s.Partitions-1).Draw(t, label+" partition"))
	case "isr-follower":
		return fmt.Sprintf("isr-follower t/%d", rapid.IntRange(0, s.Partitions-1).Draw(t, label+" partition"))
	case "broker":
		return fmt.Sprintf("b%d", rapid.IntRange(1, s.Brokers).Draw(t, label+" broker"))
	case "random-broker":
		return "random-broker"
	}
	return "controller"
}

// tp draws a partition of topic t.
func drawTP(t *rapid.T, s clusterShape) string {
	return fmt.Sprintf("t/%d", rapid.IntRange(0, s.Partitions-1).Draw(t, "partition"))
}

// faultLine is one schedule line: when, until when, and what.
type faultLine struct {
	At, End time.Duration // End 0: an instantaneous fault
	What    string
}

// after is the line moved later by d.
func (f faultLine) after(d time.Duration) faultLine {
	f.At += d
	if f.End != 0 {
		f.End += d
	}
	return f
}

func (f faultLine) String() string {
	if f.End == 0 {
		return fmt.Sprintf("at %v %s", f.At, f.What)
	}
	return fmt.Sprintf("from %v to %v %s", f.At, f.End, f.What)
}

// faultSlot is when a drawn fault may act: it starts at At and its window may
// last until End at most.
type faultSlot struct{ At, End time.Duration }

// steps draws a duration of 1 to n faultSteps.
func drawSteps(t *rapid.T, label string, n int) time.Duration {
	return faultStep * time.Duration(rapid.IntRange(1, max(n, 1)).Draw(t, label))
}

// faultKind draws the schedule lines of one fault (most are one line; a
// composed fault, such as a leader cut off and then killed, is several,
// which rapid keeps or drops together).
type faultKind struct {
	name  string
	lines func(t *rapid.T, s clusterShape, at faultSlot) []faultLine
}

// window is a kind of one windowed line: "from T to U what".
func windowKind(name string, what func(t *rapid.T, s clusterShape) string) faultKind {
	return faultKind{name, func(t *rapid.T, s clusterShape, at faultSlot) []faultLine {
		w := what(t, s)
		return []faultLine{{At: at.At, End: at.At + drawSteps(t, "length", int((at.End-at.At)/faultStep)), What: w}}
	}}
}

// instant is a kind of one instantaneous line: "at T what".
func instantKind(name string, what func(t *rapid.T, s clusterShape) string) faultKind {
	return faultKind{name, func(t *rapid.T, s clusterShape, at faultSlot) []faultLine {
		return []faultLine{{At: at.At, What: what(t, s)}}
	}}
}

// faultGen draws one fault of the given kinds, shrinking toward the first
// kind, the earliest start and the shortest window; maxLen bounds a
// window.
func faultGen(s clusterShape, p runPhases, kinds []faultKind, maxLen time.Duration) *rapid.Generator[[]faultLine] {
	last := p.Safety - faultTail
	return rapid.Custom(func(t *rapid.T) []faultLine {
		k := rapid.SampledFrom(kinds).Draw(t, "kind")
		at := faultFirst + faultStep*time.Duration(rapid.IntRange(0, int((last-faultFirst)/faultStep)).Draw(t, "start"))
		return k.lines(t, s, faultSlot{at, min(at+maxLen, p.Safety-time.Second)})
	})
}

// drawFaults draws nMin to nMax faults and returns their schedule lines
// in time order (a drawn list is not sorted; the file must be), times
// counted from the case's start.
func drawFaults(t *rapid.T, s clusterShape, p runPhases, kinds []faultKind, nMin, nMax int, maxLen time.Duration) []faultLine {
	var fs []faultLine
	for _, f := range rapid.SliceOfN(faultGen(s, p, kinds, maxLen), nMin, nMax).Draw(t, "faults") {
		fs = append(fs, f...)
	}
	slices.SortStableFunc(fs, func(a, b faultLine) int { return int(a.At - b.At) })
	return fs
}

// node returns the what of a one-node fault.
func nodeWhat(verb string) func(t *rapid.T, s clusterShape) string {
	return func(t *rapid.T, s clusterShape) string { return verb + " " + drawTarget(t, s, "node") }
}

// onTP returns the what of a fault on a node chosen by partition, as in
// "crash leader-of t/0".
func onTP(format string) func(t *rapid.T, s clusterShape) string {
	return func(t *rapid.T, s clusterShape) string { return fmt.Sprintf(format, drawTP(t, s)) }
}

// cutThenKill isolates a partition's leader from the other brokers (the
// controller still hears it, so it stays leader) and crashes it while it
// is still cut off, after holding it cut off for holdMin to holdMax. With
// replica.lag.time.max.ms=3s, a short hold kills a leader whose followers
// are still in the ISR without its latest writes (the acks=1 loss); a
// hold over 5 s kills a leader that the ISR had shrunk to, and that
// acknowledged writes alone (Jepsen's 2013 Kafka test).
func cutThenKill(holdMin, holdMax time.Duration) faultKind {
	return faultKind{"leader cut off, then killed", func(t *rapid.T, s clusterShape, at faultSlot) []faultLine {
		p := drawTP(t, s)
		start := max(min(at.At, at.End-holdMax-time.Second), faultFirst)
		kill := start + holdMin + drawSteps(t, "cut held before the kill", int((holdMax-holdMin)/faultStep))
		end := kill + drawSteps(t, "leader down", int((at.End-kill)/faultStep))
		return []faultLine{
			{At: start, End: end, What: "partition isolate leader-of " + p + " from brokers"},
			{At: kill, End: end, What: "crash leader-of " + p},
		}
	}}
}

var (
	cutThenKillSoon = cutThenKill(0, 2500*time.Millisecond)
	cutThenKillLate = cutThenKill(5*time.Second, 10*time.Second)
)

// followerThenLeader crashes an ISR follower and, while it is down or
// catching up, the leader: the follower may come back to a log it has
// truncated and be the one elected. The leader's crash comes within twice
// the follower's downtime and inside the slot (it once could come after
// the slot, and after the safety phase: TestGeneratedFaultsStartAfterTheClusterIsReady).
var followerThenLeader = faultKind{"follower crash, then leader crash", func(t *rapid.T, s clusterShape, at faultSlot) []faultLine {
	p := drawTP(t, s)
	slot := int((at.End - at.At) / faultStep)
	down := drawSteps(t, "follower down", slot-1)
	lead := at.At + drawSteps(t, "leader crash after", min(int(2*down/faultStep), slot-1))
	return []faultLine{
		{At: at.At, End: at.At + down, What: "crash isr-follower " + p},
		{At: lead, End: lead + drawSteps(t, "leader down", int((at.End-lead)/faultStep)), What: "crash leader-of " + p},
	}
}}

// safeKinds are the faults the safe configuration must survive: every
// kind of the schedule files except a broker's power loss (which takes
// unsynced data, and with it the durability promise, when it hits the
// last replica holding a record) and the instantaneous kinds that only
// undo others.
var safeKinds = []faultKind{
	windowKind("crash", nodeWhat("crash")),
	windowKind("isolate", func(t *rapid.T, s clusterShape) string {
		return "partition isolate " + drawTarget(t, s, "node") + drawOne(t, "scope", "", " from brokers", " from all")
	}),
	windowKind("pause", nodeWhat("pause")),
	windowKind("shutdown", nodeWhat("shutdown")),
	windowKind("oneway", func(t *rapid.T, s clusterShape) string {
		p := drawTP(t, s)
		if drawOne(t, "direction", "leader to follower", "follower to leader") == "leader to follower" {
			return "partition oneway leader-of " + p + " isr-follower " + p
		}
		return "partition oneway isr-follower " + p + " leader-of " + p
	}),
	windowKind("split", func(t *rapid.T, s clusterShape) string {
		return "partition " + drawOne(t, "split", "halves", "ring", "bridge")
	}),
	windowKind("clog", func(t *rapid.T, s clusterShape) string {
		p := drawTP(t, s)
		return fmt.Sprintf("clog leader-of %s isr-follower %s +%v", p, p, 100*time.Millisecond*time.Duration(rapid.IntRange(1, 30).Draw(t, "delay")))
	}),
	windowKind("latency", func(t *rapid.T, s clusterShape) string {
		return fmt.Sprintf("latency %s +%v", drawTarget(t, s, "node"), 50*time.Millisecond*time.Duration(rapid.IntRange(1, 10).Draw(t, "delay")))
	}),
	windowKind("controller power loss", func(*rapid.T, clusterShape) string { return "power-loss controller" }),
	instantKind("reset", onTP("reset leader-of %[1]s isr-follower %[1]s")),
	windowKind("skew", func(t *rapid.T, s clusterShape) string {
		d := time.Second * time.Duration(rapid.IntRange(-10, 10).Draw(t, "skew"))
		if d == 0 {
			d = time.Second
		}
		sign := "+"
		if d < 0 {
			sign, d = "-", -d
		}
		return fmt.Sprintf("skew %s %s%v", drawTarget(t, s, "node"), sign, d)
	}),
	windowKind("drift", func(t *rapid.T, s clusterShape) string {
		r := rapid.IntRange(-50, 50).Draw(t, "drift (per mille)")
		if r == 0 {
			r = 1
		}
		return fmt.Sprintf("drift %s %s", drawTarget(t, s, "node"), driftRate(r))
	}),
	cutThenKillSoon,
	cutThenKillLate,
	followerThenLeader,
}

// driftRate writes a clock rate of perMille thousandths as a schedule
// prints it back (the shortest decimal, signed: "+0.05", not "+0.050"),
// so that a generated line is the line the run reports.
func driftRate(perMille int) string {
	r := strconv.FormatFloat(float64(perMille)/1000, 'g', -1, 64)
	if !strings.HasPrefix(r, "-") {
		r = "+" + r
	}
	return r
}

// safeCase draws a case inside the safe envelope: acks=all with
// idempotence, clean election, epoch truncation, ELR on (the safe
// baseline), replication factor and min.insync.replicas at least 2, any
// in-flight limit up to 5, and the faults of safeKinds.
func safeCase(t *rapid.T) propCase {
	s := drawShape(t, shapeRange{RFMin: 2, MinISRMin: 2})
	c := propCase{Brokers: s.Brokers, Partitions: int32(s.Partitions), Phases: longPhases}
	c.Interval = drawOne(t, "send interval", 20*time.Millisecond, 5*time.Millisecond, 50*time.Millisecond)
	c.Set = drawSettings(t, s.settings(), []settingKnob{
		{"max.in.flight.requests.per.connection", []string{"5", "1", "2", "3", "4"}},
		{"linger.ms", []string{"5ms", "0s", "20ms"}},
		{"replica.lag.time.max.ms", []string{"30s", "10s", "3s"}},
	})
	c.Faults = drawFaults(t, s, c.Phases, safeKinds, 0, 8, 12*time.Second)
	c.Seed = rapid.Uint64Range(1, 1<<16).Draw(t, "seed")
	drawGroup(t, &c, s)
	return c
}

// drawGroup adds, or not, a consumer group subscribed to t (the assigning
// consumer stays), with its assignor and group settings: a group moves
// partitions between members as brokers (its coordinator among them) fail,
// and each member must still read its partitions in order, without gaps,
// and the group must read everything.
//
// __consumer_offsets gets the topic's replication factor: its writes need
// min.insync.replicas like any acks=all write, and Kafka's default of 3
// replicas is below a min.insync.replicas of 4 (the coordinator would
// then refuse every write, faithfully, and the group never form).
func drawGroup(t *rapid.T, c *propCase, s clusterShape) {
	if drawOne(t, "consumers", "assign", "assign and subscribe") == "assign" {
		return
	}
	c.Groups = []fixture.GroupSpec{{Name: "g", Members: drawOne(t, "group members", 2, 1, 3)}}
	c.Set = nonBaseline(append(c.Set, "session.timeout.ms=10s", "heartbeat.interval.ms=3s", "offsets.topic.num.partitions=5",
		fmt.Sprintf("offsets.topic.replication.factor=%d", s.RF),
		"partition.assignment.strategy="+drawOne(t, "assignor", "range", "cooperative-sticky", "roundrobin", "sticky")))
}

// retryKinds make an idempotence-less producer retry: leaders crash or
// are cut off (requests time out or break), followers drop out of the ISR
// below min.insync.replicas (NOT_ENOUGH_REPLICAS) and come back.
var retryKinds = []faultKind{
	windowKind("crash leader", onTP("crash leader-of %s")),
	windowKind("isolate leader", onTP("partition isolate leader-of %s")),
	windowKind("isolate follower", onTP("partition isolate isr-follower %s from brokers")),
	windowKind("pause follower", onTP("pause isr-follower %s")),
	windowKind("isolate leader from brokers", onTP("partition isolate leader-of %s from brokers")),
}

// reorderCase draws a case outside the envelope for ordering: no
// idempotence, five requests in flight, under retryKinds faults.
func reorderCase(t *rapid.T) propCase {
	s := drawShape(t, shapeRange{RFMin: 2})
	c := propCase{Brokers: s.Brokers, Partitions: int32(s.Partitions), Phases: shortPhases}
	c.Interval = drawOne(t, "send interval", 20*time.Millisecond, 5*time.Millisecond, 2*time.Millisecond)
	c.Set = drawSettings(t, append(s.settings(), "enable.idempotence=false", "max.in.flight.requests.per.connection=5"), []settingKnob{
		{"replica.lag.time.max.ms", []string{"2s", "5s", "30s"}},
	})
	c.Faults = drawFaults(t, s, c.Phases, retryKinds, 1, 6, 8*time.Second)
	c.Seed = rapid.Uint64Range(1, 1<<16).Draw(t, "seed")
	return c
}

// lossKinds take leaders away while followers lag: a leader cut off from
// the other brokers (the controller still hears it) keeps acknowledging;
// crashes then move leadership to a replica that may lack those writes.
// Each unsafe knob puts the story that shows its bug first.
var lossKinds = []faultKind{
	windowKind("crash leader", onTP("crash leader-of %s")),
	windowKind("crash follower", onTP("crash isr-follower %s")),
	windowKind("isolate leader from brokers", onTP("partition isolate leader-of %s from brokers")),
	windowKind("isolate follower from brokers", onTP("partition isolate isr-follower %s from brokers")),
}

// unsafeKnob is one way out of the durability envelope: the settings that
// leave it, and those of its era that stay when it is fixed (the
// historical bugs' Buggy and Fixed).
type unsafeKnob struct {
	name  string
	bug   []string
	era   []string
	shape shapeRange
	story faultKind // the faults that show the bug, drawn most often
}

// lossKnobs are the three ways to lose an acknowledged write that the
// properties must find.
var lossKnobs = []unsafeKnob{
	{
		name:  "acks=1",
		bug:   []string{"acks=1", "enable.idempotence=false"},
		era:   []string{"eligible.leader.replicas.enable=false"},
		shape: shapeRange{RFMin: 2},
		story: cutThenKillSoon,
	},
	{
		name:  "unclean election",
		bug:   []string{"unclean.leader.election.enable=true"},
		era:   []string{"eligible.leader.replicas.enable=false"},
		shape: shapeRange{RFMin: 2, MinISRMax: 1},
		story: cutThenKillLate,
	},
	{
		name:  "high-watermark truncation",
		bug:   []string{"truncation=high-watermark"},
		era:   []string{"eligible.leader.replicas.enable=false"},
		shape: shapeRange{RFMin: 2},
		story: followerThenLeader,
	},
}

// lossCase draws a case with one unsafe knob under lossKinds faults; fixed
// is the same case with the knob's fix (the era settings kept).
func lossCase(k unsafeKnob) func(t *rapid.T) (bug, fixed propCase) {
	return func(t *rapid.T) (propCase, propCase) {
		s := drawShape(t, k.shape)
		c := propCase{Brokers: s.Brokers, Partitions: int32(s.Partitions), Phases: shortPhases}
		c.Interval = drawOne(t, "send interval", 20*time.Millisecond, 50*time.Millisecond)
		fixed := c
		c.Set = nonBaseline(slices.Concat(s.settings(), []string{"replica.lag.time.max.ms=3s"}, k.era, k.bug))
		fixed.Set = nonBaseline(slices.DeleteFunc(slices.Clone(c.Set), func(kv string) bool { return slices.Contains(k.bug, kv) }))
		kinds := append([]faultKind{k.story, k.story, k.story}, lossKinds...)
		c.Faults = drawFaults(t, s, c.Phases, kinds, 1, 4, 12*time.Second)
		c.Seed = rapid.Uint64Range(1, 1<<16).Draw(t, "seed")
		fixed.Faults, fixed.Seed = c.Faults, c.Seed
		return c, fixed
	}
}

// anomalies lists the distinct anomalies of a run's violations (allowed
// ones too), sorted.
func anomalyNames(res Result) []string {
	var out []string
	for _, v := range res.Violations {
		if !slices.Contains(out, v.Anomaly) {
			out = append(out, v.Anomaly)
		}
	}
	slices.Sort(out)
	return out
}

// violationLines prints up to n violations, errors first.
func violationLines(res Result, n int) string {
	vs := slices.Clone(res.Violations)
	slices.SortStableFunc(vs, func(a, b checkers.Violation) int {
		switch {
		case a.Error && !b.Error:
			return -1
		case b.Error && !a.Error:
			return 1
		}
		return 0
	})
	var b strings.Builder
	for i := range vs {
		if i == n {
			fmt.Fprintf(&b, "  ... and %d more\n", len(vs)-n)
			break
		}
		fmt.Fprintf(&b, "  %s\n", vs[i].String())
	}
	return b.String()
}
