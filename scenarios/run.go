package scenarios

import (
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"time"

	"kafkasim/checkers"
	"kafkasim/faults"
	"kafkasim/model"
	"kafkasim/sim"
)

// Options adjust one run of a scenario.
type Options struct {
	// Set overrides configuration by Kafka name, "key=value".
	Set []string
	// OutDir receives artifacts (porcupine's visualization on a
	// linearizability failure).
	OutDir string
	// LinearizabilityBudget caps porcupine's search in wall-clock time, a
	// last resort behind its work budget (0: checkers.DefaultLinearizabilityCap;
	// negative skips it).
	LinearizabilityBudget time.Duration
	// Schedule, if set, replaces the scenario's faults (a schedule file).
	Schedule *faults.Schedule
	// ScheduleFile is where Schedule was read from, or better, where a
	// copy of it is kept (a run directory's schedule.txt): recorded in the
	// result and its reproduce lines. Ignored without Schedule.
	ScheduleFile string
	_            struct{}
}

// Stats count what happened in a run.
type Stats struct {
	Events         uint64  `json:"events"`
	VirtualSeconds float64 `json:"virtual_seconds"`
	WallSeconds    float64 `json:"wall_seconds"`
	SendsOK        int     `json:"sends_ok"`
	SendsFail      int     `json:"sends_fail"`
	SendsInfo      int     `json:"sends_info"`
	RecordsPolled  int     `json:"records_polled"`
	// LeaderChanges and ISRChanges are read from the final partition
	// epochs: each leader change bumps the leader epoch, every other
	// change (ISR, ELR) only the partition epoch.
	LeaderChanges int `json:"leader_changes"`
	ISRChanges    int `json:"isr_changes"`
}

// Result is the outcome of one run.
type Result struct {
	Scenario string `json:"scenario"`
	Seed     uint64 `json:"seed"`
	// OK: no checker found an error-level violation and the cluster
	// converged after healing, whatever the scenario expected.
	OK bool `json:"ok"`
	// Expected is "" for a scenario that must pass, else the anomaly it
	// must show; AsExpected says whether the run matched.
	Expected   string               `json:"expected,omitempty"`
	AsExpected bool                 `json:"as_expected"`
	Valid      checkers.Valid       `json:"valid"`
	Violations []checkers.Violation `json:"violations"`
	// Omitted counts the findings a sweep's row of the run left out
	// (Row); empty in a run's own result.json, which has them all.
	Omitted []OmittedFindings `json:"omitted,omitempty"`
	// Liveness is empty when the cluster converged (or the phase was
	// skipped), else what was stuck at the bound.
	Liveness string `json:"liveness,omitempty"`
	// Schedule is the run's faults in the schedule-file format (replay it
	// with -schedule); FaultLog says what each fault hit.
	Schedule  string   `json:"schedule"`
	FaultLog  []string `json:"fault_log,omitempty"`
	TraceHash string   `json:"trace_hash"`
	Stats     Stats    `json:"stats"`
	Artifacts []string `json:"artifacts,omitempty"`
	// Failovers are the partitions' leader losses and what followed,
	// measured from the history, the brokers' leadership reports and the
	// fault log (see MeasureFailovers).
	Failovers []Failover `json:"failovers,omitempty"`
	// ControllerFailovers are the active controller's losses of the
	// metadata quorum's leadership and how long the quorum took to commit
	// again, measured from the quorum observations and the fault log (see
	// MeasureControllerFailovers).
	ControllerFailovers []ControllerFailover `json:"controller_failovers,omitempty"`
	// Vary is the "key=value" a sweep -vary ran this run under ("" when
	// none), so that a report rebuilt from results.jsonl groups by it.
	Vary string `json:"vary,omitempty"`
	// Set is every -set of the run as given (a sweep's -vary setting
	// last), ScheduleFile the schedule file that replaced the scenario's
	// faults ("" when the scenario's own ran): with Scenario and Seed,
	// what Invocation and its reproduce lines are made of.
	Set          []string `json:"set"`
	ScheduleFile string   `json:"schedule_file,omitempty"`
	// Experiment is the experiment file the scenario came from, and
	// ExperimentHash its hash ("" for a catalog scenario).
	Experiment     string `json:"experiment,omitempty"`
	ExperimentHash string `json:"experiment_sha256,omitempty"`
	// Version is the kafkasim build that ran it (see Version), GoVersion
	// the Go release it was built with.
	Version   string `json:"kafkasim_version"`
	GoVersion string `json:"go_version"`
	// History is the run's history, for writing out; not in the JSON.
	History model.History `json:"-"`
	// Observed and Faults are what the brokers reported and what the
	// faults hit, for a timeline of the run; not in the JSON.
	Observed model.Observations `json:"-"`
	Faults   []FaultWindow      `json:"-"`

	// What the run was given and the rest of what the checkers judged, so
	// that SaveRun can write a run directory that CheckRun judges again to
	// the same verdict; not in the JSON. ScheduleGiven says a schedule file replaced the scenario's faults;
	// Config is the configuration after Set; CheckOptions are the options
	// the checkers ran with (without OutDir).
	ScheduleGiven bool                   `json:"-"`
	Config        model.Config           `json:"-"`
	CheckOptions  checkers.Options       `json:"-"`
	Replicas      []checkers.ReplicaLog  `json:"-"`
	DiskLost      []model.TopicPartition `json:"-"`
	Stranded      []model.TopicPartition `json:"-"`
}

// ConfigFor applies a scenario's configuration and the -set overrides,
// and validates the result.
func ConfigFor(sc Scenario, set []string) (model.Config, error) {
	kc := safe()
	if sc.Config != nil {
		kc = sc.Config()
	}
	// kafka.version first, whatever the flags' order (Config.SetAll).
	if err := kc.SetAll(set); err != nil {
		return kc, err
	}
	if err := kc.Validate(); err != nil {
		return kc, err
	}
	return kc, nil
}

// judged is kc with topic t's own settings laid over it: what the
// checkers must take the topic to promise (its min.insync.replicas, its
// unclean.leader.election.enable), and what a saved run records for its
// re-check. The settings were validated when the scenario was made.
func judged(kc model.Config, topic []model.ConfigEntry) model.Config {
	for _, c := range topic {
		if err := kc.Set(c.Name, c.Value); err != nil {
			panic(fmt.Sprintf("scenarios: topic setting %s=%s was not validated: %v", c.Name, c.Value, err))
		}
	}
	return kc
}

// Run plays a scenario with one seed: the safety phase under its faults,
// then (if it has a liveness bound) the liveness phase in which every
// fault heals and the cluster must converge, then the checkers. An error
// means the scenario could not run (bad configuration); a failed run is a
// Result with OK false.
func Run(sc Scenario, seed uint64, opts Options) (Result, error) {
	sc, opts.Set = resolve(sc, seed, opts.Set)
	kc, err := ConfigFor(sc, opts.Set)
	if err != nil {
		return Result{}, err
	}
	wallStart := time.Now() // reported only; never reaches the run
	s, liveness, err := play(sc, seed, kc, sim.Config{}, opts.Schedule)
	if err != nil {
		return Result{}, err
	}
	start := s.ready
	res := Result{Scenario: sc.Name, Seed: seed, Expected: sc.Expect.Anomaly(), Liveness: liveness}

	copts := CheckOptions(judged(kc, sc.TopicConfigs))
	copts.OutDir = opts.OutDir
	copts.LinearizabilityBudget = opts.LinearizabilityBudget
	if copts.LinearizabilityBudget == 0 {
		copts.LinearizabilityBudget = checkers.DefaultLinearizabilityCap
	}
	in := s.CheckInput()
	var check checkers.Result
	if s.cutShort == nil {
		check = checkers.Check(in, copts)
	} else {
		check = s.cutShort.result()
	}
	res.Valid, res.Violations = check.Valid, check.Violations
	if v := hangingViolation(liveness); v != nil {
		res.Violations = append(res.Violations, *v)
	}
	for _, pc := range check.Linearizability {
		if pc.Visualization != "" {
			res.Artifacts = append(res.Artifacts, pc.Visualization)
		}
	}
	res.History = in.History // the checkers only read it, and the run is over
	res.DiskLost, res.Stranded = in.DiskLost, in.Stranded
	res.Schedule = s.schedule.String()
	for _, e := range s.nemesis.Log() {
		res.FaultLog = append(res.FaultLog, e.String())
	}
	res.Failovers = MeasureFailovers(res.History, in.Observations.Leaders, s.nemesis.Log())
	res.ControllerFailovers = MeasureControllerFailovers(in.Observations.Quorum, s.nemesis.Log())
	res.Observed = in.Observations
	res.Set, res.ScheduleGiven, res.Config = slices.Clone(opts.Set), opts.Schedule != nil, judged(kc, sc.TopicConfigs)
	res.Experiment, res.ExperimentHash = sc.Experiment, sc.ExperimentHash
	if opts.Schedule != nil {
		res.ScheduleFile = opts.ScheduleFile
	}
	res.Version, res.GoVersion = Version(), runtime.Version()
	res.CheckOptions = copts
	res.CheckOptions.OutDir = ""
	res.Replicas, res.DiskLost = in.Replicas, in.DiskLost
	res.Faults = faultWindows(s.nemesis.Log(), s.Sim.Now())
	res.Stats = s.stats(res.History, start, time.Since(wallStart))
	res.TraceHash = strconv.FormatUint(s.Sim.Hash(), 16)
	res.OK = len(check.Errors()) == 0 && res.Liveness == ""
	res.AsExpected = sc.Expect.MetBy(res)
	return res, nil
}

func (s *Scripted) stats(h model.History, start time.Duration, wall time.Duration) Stats {
	st := Stats{
		Events:         s.Sim.Stats().Events,
		VirtualSeconds: (s.Sim.Now() - start).Seconds(),
		WallSeconds:    wall.Seconds(),
	}
	for _, op := range h {
		switch {
		case op.F == model.FSend && op.Type == model.OpOK:
			st.SendsOK++
		case op.F == model.FSend && op.Type == model.OpFail:
			st.SendsFail++
		case op.F == model.FSend:
			st.SendsInfo++
		case op.F == model.FPoll && op.Type == model.OpOK:
			for _, pr := range op.Records {
				st.RecordsPolled += len(pr.Records)
			}
		}
	}
	for _, tp := range s.TPs {
		if ps, ok := s.Partition(tp); ok {
			st.LeaderChanges += int(ps.LeaderEpoch)
			st.ISRChanges += int(ps.PartitionEpoch - ps.LeaderEpoch)
		}
	}
	return st
}

// drain is how long a run goes on after the workload stops, so that the
// last reads land; a fault timed in it still fires when the run has no
// liveness phase to heal everything first.
const drain = 5 * time.Second

// play is the one path every run of a scenario takes (Run, Replay, the
// test harness and the historical bugs' tests), in five steps; the run is
// then over and ready to be judged. trace sets the kernel's tracing (for
// replay checks); override, if not nil, replaces the scenario's faults.
//
//  1. Build: the fixture (NewScripted from fixtureOptions) boots and
//     becomes ready, and the producer's stop (ProduceUntil) is set.
//  2. Probe: a schedule writer whose faults must start at a moment only
//     the run reveals may run a twin of the fixture ahead to find it
//     (Scripted.probe); the twin comes from step 1 again, untraced, and
//     the fixture's own clock does not move, so the written schedule
//     replays the run event for event.
//  3. Write the faults: the override, else the scenario's Schedule,
//     Writer or Swarm, with its written-out Faults added.
//  4. Safety phase: the faults play until the phase ends.
//  5. Liveness phase (if the scenario has a bound): every fault heals and
//     the cluster must converge; then the workload stops and the last
//     reads land (drain).
func play(sc Scenario, seed uint64, kc model.Config, trace sim.Config, override *faults.Schedule) (*Scripted, string, error) {
	build := func(trace sim.Config) (*Scripted, error) {
		s, err := NewScripted(fixtureOptions(sc, seed, kc, trace))
		if err != nil {
			return nil, err
		}
		if sc.ProduceUntil > 0 {
			s.StopProducingAt(sc.ProduceUntil)
		}
		return s, nil
	}
	s, err := build(trace)
	if err != nil {
		return nil, "", err
	}
	s.ready = s.Sim.Now()
	s.safety = s.ready + sc.Safety
	if sc.Until > 0 {
		s.safety = sc.Until
	}
	s.twin = func() *Scripted {
		p, err := build(sim.Config{})
		if err != nil {
			panic(fmt.Sprintf("scenarios: the twin of a fixture that was built fails: %v", err))
		}
		return p
	}
	switch {
	case override != nil:
		s.schedule = *override
	case sc.Schedule != nil:
		s.schedule = sc.Schedule(s)
	case sc.Writer != nil:
		s.schedule = sc.Writer.write(s)
	case sc.Swarm != nil:
		o := *sc.Swarm
		o.Start, o.End = s.ready, s.safety
		s.schedule = faults.Swarm(seed, o, s.shape())
	}
	if override == nil && len(sc.Faults) > 0 {
		s.schedule = append(append(faults.Schedule(nil), s.schedule...), sc.Faults...).Sorted()
	}
	nem, err := faults.Apply(world{s}, s.schedule)
	if err != nil {
		return nil, "", err
	}
	nem.SetOutside(s.Spares) // brokers only an add-broker starts
	s.nemesis = nem
	liveness := ""
	s.cutShort = runCatching(s, func() {
		s.Sim.Run(s.safety)
		if sc.LivenessBound > 0 {
			nem.Heal()
			liveness = s.liveness(sc.LivenessBound)
		}
		s.StopProducing()
		s.Sim.Run(s.Sim.Now() + drain) // let the last reads land
	})
	return s, liveness, nil
}

// Replay runs a scenario twice with the same seed and reports whether the
// runs were identical event for event; when they were not, it names the
// first event where they part (see sim.CheckReplay).
func Replay(sc Scenario, seed uint64, set []string, schedule *faults.Schedule) (sim.Divergence, bool, error) {
	sc, set = resolve(sc, seed, set)
	kc, err := ConfigFor(sc, set)
	if err != nil {
		return sim.Divergence{}, false, err
	}
	var runErr error
	d, same := sim.CheckReplay(sim.Config{CheckpointEvery: 4096}, func(trace sim.Config) *sim.Sim {
		s, _, err := play(sc, seed, kc, trace, schedule)
		if err != nil {
			runErr = err
			return sim.New(trace)
		}
		return s.Sim
	})
	return d, same, runErr
}
