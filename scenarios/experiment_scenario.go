package scenarios

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"kafkasim/faults"
	"kafkasim/model"
	"kafkasim/scenarios/fixture"
	"kafkasim/sim"
)

// Limits on an experiment's shape: large enough for any experiment the
// simulation can run in reasonable time, small enough that a typo (a
// thousand brokers) is refused instead of run for an hour.
const (
	experimentBrokersMax     = 50
	experimentControllersMax = 9
	// experimentSnapshotEveryMax bounds [cluster]'s metadata_snapshot_every.
	experimentSnapshotEveryMax = 1_000_000
	experimentPartitionsMax    = 1000
	experimentMembersMax       = 100
	experimentGroupsMax        = 20
	experimentBurstMax         = 10_000
	experimentSeedsMax         = 10_000
)

// experimentNamePattern is what a name may be: it names a store folder
// and a go test subtest.
var experimentNamePattern = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,63}$`)

// LoadedExperiment is an experiment file read and checked: the Scenario
// it runs as, the experiment itself (any schedule_file inlined, so that
// it stands alone), and where it came from.
type LoadedExperiment struct {
	File       string
	Experiment Experiment
	Scenario   Scenario
	// Hash is the SHA-256 of the experiment as Format prints it (with any
	// schedule file inlined): what its results and reproduce lines name,
	// the same for a reformatted file that means the same and for the
	// copy a run directory keeps.
	Hash string
	// Schedule is the written-out faults with the file and line each
	// was written on, for CheckSchedule against a run's cluster.
	Schedule ScheduleFile
}

// LoadExperiment reads, decodes and checks an experiment file, and reads
// the schedule file it names (relative to it). Every error is
// `file:line:col: reason`.
func LoadExperiment(path string) (LoadedExperiment, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return LoadedExperiment{}, err
	}
	e, err := DecodeExperiment(path, data)
	if err != nil {
		return LoadedExperiment{}, err
	}
	schedName, schedOffset := path, 0
	if f := e.Faults.ScheduleFile; f != "" {
		if e.Faults.Schedule != "" {
			line, col := locateKey(data, []string{"faults", "schedule_file"})
			return LoadedExperiment{}, &ExperimentError{File: path, Line: line, Col: col, Reason: "schedule and schedule_file are exclusive: give the faults inline or in a file"}
		}
		if !filepath.IsAbs(f) {
			f = filepath.Join(filepath.Dir(path), f)
		}
		text, err := os.ReadFile(f)
		if err != nil {
			line, col := locateKey(data, []string{"faults", "schedule_file"})
			return LoadedExperiment{}, &ExperimentError{File: path, Line: line, Col: col, Reason: err.Error()}
		}
		// Its own errors are its own file's lines.
		if _, err := faults.Parse(strings.NewReader(string(text)), f); err != nil {
			return LoadedExperiment{}, err
		}
		e.Faults.Schedule, e.Faults.ScheduleFile = string(text), ""
		schedName = f
	} else if e.Faults.Schedule != "" {
		schedOffset = scheduleFirstLine(data) - 1
	}
	sc, err := e.scenario(path, data)
	if err != nil {
		return LoadedExperiment{}, err
	}
	sc.Experiment, sc.ExperimentHash = path, e.Hash()
	le := LoadedExperiment{File: path, Experiment: e, Scenario: sc, Hash: sc.ExperimentHash}
	if e.Faults.Schedule != "" {
		s, lines, err := faults.ParseLines(strings.NewReader(e.Faults.Schedule), schedName)
		if err != nil {
			return LoadedExperiment{}, err // scenario() parsed it already
		}
		for i := range lines {
			lines[i] += schedOffset
		}
		le.Schedule = ScheduleFile{Name: schedName, Schedule: s, Lines: lines}
		if err := checkScheduleRacks(sc, le.Schedule); err != nil {
			return LoadedExperiment{}, err
		}
	}
	return le, nil
}

// ParseExperiment decodes and checks an experiment from bytes (a
// schedule_file is refused: there is no directory to find it in).
func ParseExperiment(file string, data []byte) (Experiment, Scenario, error) {
	e, err := DecodeExperiment(file, data)
	if err != nil {
		return Experiment{}, Scenario{}, err
	}
	if e.Faults.ScheduleFile != "" {
		line, col := locateKey(data, []string{"faults", "schedule_file"})
		return Experiment{}, Scenario{}, &ExperimentError{File: file, Line: line, Col: col, Reason: "schedule_file needs the experiment read from a file"}
	}
	sc, err := e.scenario(file, data)
	if err != nil || e.Faults.Schedule == "" {
		return e, sc, err
	}
	s, lines, err := faults.ParseLines(strings.NewReader(e.Faults.Schedule), file)
	if err != nil {
		return Experiment{}, Scenario{}, err // scenario() parsed it already
	}
	for i := range lines {
		lines[i] += scheduleFirstLine(data) - 1
	}
	if err := checkScheduleRacks(sc, ScheduleFile{Name: file, Schedule: s, Lines: lines}); err != nil {
		return Experiment{}, Scenario{}, err
	}
	return e, sc, nil
}

// Hash is the SHA-256 of Format(e), in hex.
func (e Experiment) Hash() string {
	sum := sha256.Sum256([]byte(Format(e)))
	return hex.EncodeToString(sum[:])
}

// SeedsOrDefault are the seeds the test harness runs e with.
func (e Experiment) SeedsOrDefault() []uint64 {
	if len(e.Seeds) == 0 {
		return slices.Clone(defaultSeeds)
	}
	return slices.Clone(e.Seeds)
}

// defaultSeeds are the seeds every safe scenario and experiment runs in
// the test harness when no -seed is given.
var defaultSeeds = []uint64{1, 2, 3}

// scenario checks every value of e and maps it onto a Scenario; an error
// names the key at fault in data (file's bytes). The sections are
// checked in the file's order, so the first mistake is the one reported.
func (e Experiment) scenario(file string, data []byte) (Scenario, error) {
	fail := func(reason string, key ...string) error {
		line, col := locateKey(data, key)
		return &ExperimentError{File: file, Line: line, Col: col, Reason: reason}
	}
	sc := Scenario{Name: e.Name, Description: e.Description}
	if err := e.mapIdentity(&sc, fail); err != nil {
		return Scenario{}, err
	}
	brokers, err := e.mapCluster(&sc, fail)
	if err != nil {
		return Scenario{}, err
	}
	kc, err := e.mapConfig(fail)
	if err != nil {
		return Scenario{}, err
	}
	sc.Config = func() model.Config { return kc }

	// The topics and the workload (experiment_workload.go).
	if err := e.mapTopics(&sc, kc, brokers, fail); err != nil {
		return Scenario{}, err
	}
	if err := e.mapWorkload(&sc, kc, fail); err != nil {
		return Scenario{}, err
	}
	if err := e.mapPhases(&sc, fail); err != nil {
		return Scenario{}, err
	}
	if err := e.checkCoverage(sc, fail); err != nil {
		return Scenario{}, err
	}
	if err := e.mapFaults(&sc, file, data, brokers, fail); err != nil {
		return Scenario{}, err
	}
	return sc, nil
}

// mapIdentity checks what names and seeds the experiment: its name, its
// expected outcome, its seeds and the draw that shapes its cluster.
func (e Experiment) mapIdentity(sc *Scenario, fail failFunc) error {
	if !experimentNamePattern.MatchString(e.Name) {
		return fail(fmt.Sprintf("name %q: want 1 to 64 of a-z, 0-9, '.', '_', '-' (it names a store folder)", e.Name), "name")
	}
	expect, err := ParseExpect(e.Expect)
	if err != nil {
		return fail(err.Error(), "expect")
	}
	sc.Expect = expect
	if len(e.Seeds) > experimentSeedsMax {
		return fail(fmt.Sprintf("%d seeds: at most %d", len(e.Seeds), experimentSeedsMax), "seeds")
	}
	if len(e.Seeds) > 0 {
		// The file's first seed is its own (Scenario.Seed), the one kafkasim
		// run plays without -seed: go test runs it first, and kafkasim show
		// writes a catalog scenario's own seed there, so a shown historical
		// bug run from its file replays the seed its schedule was written
		// against.
		sc.Seed = e.Seeds[0]
	}
	if e.Draw == "" {
		return nil
	}
	switch {
	case Draws[e.Draw] == nil || strings.HasPrefix(e.Draw, "test-"):
		return fail(fmt.Sprintf("draw %q: want %s", e.Draw, strings.Join(slices.DeleteFunc(DrawNames(), func(n string) bool { return strings.HasPrefix(n, "test-") }), ", ")), "draw")
	case e.Cluster.Brokers != 0 || e.Cluster.Controllers != 0:
		return fail("draw: the brokers and controllers are drawn from the seed; leave them out", "cluster")
	case len(e.Topics) > 0 || len(e.Workload.Producers) > 0:
		return fail("draw: the topics and producers are drawn from the seed; leave [[topics]] and [[workload.producers]] out", "draw")
	}
	sc.Draw = e.Draw
	return nil
}

// mapCluster checks [cluster] (its sizes, racks, disk and link) and maps
// it onto sc; brokers is the broker count with the default applied.
func (e Experiment) mapCluster(sc *Scenario, fail failFunc) (brokers int, err error) {
	c := e.Cluster
	sc.Brokers, sc.Controllers = c.Brokers, c.Controllers
	if c.Brokers < 0 || c.Brokers > experimentBrokersMax {
		return 0, fail(fmt.Sprintf("brokers = %d: want 1 to %d (default 3)", c.Brokers, experimentBrokersMax), "cluster", "brokers")
	}
	if c.SpareBrokers < 0 || c.SpareBrokers > fixture.SpareBrokersMax {
		return 0, fail(fmt.Sprintf("spare_brokers = %d: want 0 to %d", c.SpareBrokers, fixture.SpareBrokersMax), "cluster", "spare_brokers")
	}
	sc.SpareBrokers = c.SpareBrokers
	if c.Controllers < 0 || c.Controllers > experimentControllersMax {
		return 0, fail(fmt.Sprintf("controllers = %d: want 1 to %d (default 3)", c.Controllers, experimentControllersMax), "cluster", "controllers")
	}
	brokers = cmp(c.Brokers, 3)
	if err := checkRacks(c, brokers, sc, fail); err != nil {
		return 0, err
	}
	sc.DiskWriteback = time.Duration(c.DiskWriteback)
	if c.MetadataSnapshotEvery < 0 || c.MetadataSnapshotEvery > experimentSnapshotEveryMax {
		return 0, fail(fmt.Sprintf("metadata_snapshot_every = %d: want 1 to %d (default 1000)", c.MetadataSnapshotEvery, experimentSnapshotEveryMax), "cluster", "metadata_snapshot_every")
	}
	sc.SnapshotEvery = c.MetadataSnapshotEvery
	if c.Link != nil {
		if err := mapLink(c.Link, sc, fail); err != nil {
			return 0, err
		}
	}
	return brokers, nil
}

// mapLink checks [cluster.link] (its latency and any datagram faults) and
// maps it onto sc.Link.
func mapLink(l *ExperimentLink, sc *Scenario, fail failFunc) error {
	switch {
	case l.Max < l.Min || l.Max == 0:
		return fail("link: want 0 <= min <= max, max > 0", "cluster", "link", "max")
	case l.TailProb < 0 || l.TailProb > 1:
		return fail(fmt.Sprintf("link.tail_prob = %v: a probability, 0 to 1", l.TailProb), "cluster", "link", "tail_prob")
	case (l.TailProb > 0) != (l.Tail > 0):
		return fail("link: tail_prob and tail go together", "cluster", "link", "tail")
	case l.Min < 0 || l.Tail < 0:
		return fail("link: a latency cannot be never", "cluster", "link", "min")
	}
	sc.Link = sim.LinkConfig{Latency: sim.Latency{Min: time.Duration(l.Min), Max: time.Duration(l.Max), TailProb: l.TailProb, Tail: time.Duration(l.Tail)}}
	d := l.Datagram
	if d == nil {
		return nil
	}
	switch {
	case d.DupProb < 0 || d.DupProb > 1 || d.ReorderProb < 0 || d.ReorderProb > 1:
		return fail("link.datagram: dup_prob and reorder_prob are probabilities, 0 to 1", "cluster", "link", "datagram")
	case d.ReorderMax < 0 || (d.ReorderProb > 0) != (d.ReorderMax > 0):
		return fail("link.datagram: reorder_prob and reorder_max go together", "cluster", "link", "datagram")
	}
	sc.Link.Datagram = &sim.Datagram{DupProb: d.DupProb, ReorderProb: d.ReorderProb, ReorderMax: time.Duration(d.ReorderMax)}
	return nil
}

// mapConfig sets [config], by Kafka name, on Kafka's defaults and
// validates the whole.
func (e Experiment) mapConfig(fail failFunc) (model.Config, error) {
	kc := model.DefaultConfig()
	for _, name := range sortedKeys(e.Config) {
		if err := kc.Set(name, string(e.Config[name])); err != nil {
			return model.Config{}, fail(err.Error(), "config", name)
		}
	}
	if err := kc.Validate(); err != nil {
		// At the first setting the complaint names.
		at, first := []string{"config"}, -1
		for _, name := range sortedKeys(e.Config) {
			if i := strings.Index(err.Error(), name); i >= 0 && (first < 0 || i < first) {
				at, first = []string{"config", name}, i
			}
		}
		return model.Config{}, fail(err.Error(), at...)
	}
	return kc, nil
}

// mapPhases checks [phases] and maps it onto sc.
func (e Experiment) mapPhases(sc *Scenario, fail failFunc) error {
	p := e.Phases
	sc.Safety, sc.Until, sc.LivenessBound = time.Duration(p.Safety), time.Duration(p.Until), time.Duration(p.LivenessBound)
	switch {
	case p.Safety < 0 || p.Until < 0 || p.LivenessBound < 0:
		return fail("a phase cannot be never", "phases")
	case p.Safety == 0 && p.Until == 0:
		return fail("phases: give safety (a span after the cluster is ready) or until (an absolute virtual time)", "phases")
	case p.Safety > 0 && p.Until > 0:
		return fail("phases: safety and until are exclusive", "phases", "until")
	case p.Safety+p.Until > Duration(time.Hour):
		return fail("phases: a safety phase over an hour of virtual time is not a test", "phases")
	}
	return nil
}

// mapFaults checks [faults] (an inline schedule, a writer, a swarm) and
// maps it onto sc, whose groups, racks and phases are already set.
func (e Experiment) mapFaults(sc *Scenario, file string, data []byte, brokers int, fail failFunc) error {
	f := e.Faults
	if f.Schedule != "" {
		s, err := faults.Parse(strings.NewReader(f.Schedule), file)
		if err != nil {
			var pe *faults.ParseError
			if errors.As(err, &pe) {
				pe.Line += scheduleFirstLine(data) - 1
				return pe
			}
			return fail(err.Error(), "faults", "schedule")
		}
		sc.Faults = s
	}
	if f.Writer != nil {
		if err := e.mapWriter(sc, fail); err != nil {
			return err
		}
	}
	if f.Swarm != nil {
		if f.Writer != nil {
			return fail("faults: a writer and a swarm are exclusive (a schedule may go with either)", "faults", "swarm")
		}
		if err := e.mapSwarm(sc, brokers, fail); err != nil {
			return err
		}
	}
	return nil
}

// mapWriter checks [faults.writer] against the groups, racks and phases
// it needs and maps it onto sc.Writer.
func (e Experiment) mapWriter(sc *Scenario, fail failFunc) error {
	wr := e.Faults.Writer
	sw := ScheduleWriter{Kind: wr.Kind, Stream: wr.Stream, GapMin: time.Duration(wr.GapMin), GapMax: time.Duration(wr.GapMax), Faults: slices.Clone(wr.Faults), Script: wr.Script,
		Start: time.Duration(wr.Start), Spread: time.Duration(wr.Spread), WindowMin: time.Duration(wr.WindowMin), WindowMax: time.Duration(wr.WindowMax)}
	if err := sw.Validate(); err != nil {
		return fail("writer: "+err.Error(), "faults", "writer")
	}
	if (sw.Kind == WriterMembers || sw.Kind == WriterZombie) && len(sc.Groups) == 0 {
		return fail(fmt.Sprintf("writer %q faults group members: give [[workload.groups]]", sw.Kind), "faults", "writer", "kind")
	}
	if why := writerRackMistake(sw.Faults, sc.Racks); why != "" {
		return fail("writer: "+why, "faults", "writer", "faults")
	}
	if sw.Kind == WriterScript && e.Phases.Until == 0 {
		return fail("writer \"script\" is written against absolute times: give phases.until", "faults", "writer", "kind")
	}
	sc.Writer = &sw
	return nil
}

// mapSwarm checks [faults.swarm] (its kinds, bounds and aims) and maps it
// onto sc.Swarm.
func (e Experiment) mapSwarm(sc *Scenario, brokers int, fail failFunc) error {
	sw := e.Faults.Swarm
	o := faults.SwarmOptions{Controllers: sw.Controllers, MeanInterval: time.Duration(sw.MeanInterval),
		WindowMin: time.Duration(sw.WindowMin), WindowMax: time.Duration(sw.WindowMax), SkewMax: time.Duration(sw.SkewMax),
		DriftMax: sw.DriftMax, DelayMax: time.Duration(sw.DelayMax), SyncLatencyMax: time.Duration(sw.SyncLatencyMax)}
	kinds, err := swarmKinds(sw.Kinds, fail)
	if err != nil {
		return err
	}
	o.Kinds = kinds
	for _, t := range sw.Topics {
		if faults.CheckTopicName(t) != nil {
			return fail(fmt.Sprintf("swarm topic %q: not a topic name Kafka accepts", t), "faults", "swarm", "topics")
		}
	}
	o.Topics = slices.Clone(sw.Topics)
	if sw.MeanInterval < 0 || sw.WindowMin < 0 || sw.WindowMax < 0 || sw.SkewMax < 0 || sw.DelayMax < 0 || sw.SyncLatencyMax < 0 {
		return fail("swarm: a bound cannot be never", "faults", "swarm")
	}
	if sw.WindowMax > 0 && sw.WindowMin > sw.WindowMax {
		return fail("swarm: window_min is above window_max", "faults", "swarm", "window_min")
	}
	if sw.DriftMax < 0 || sw.DriftMax >= 1 {
		return fail(fmt.Sprintf("swarm.drift_max = %v: want 0 to 1 (a rate error)", sw.DriftMax), "faults", "swarm", "drift_max")
	}
	if err := swarmAims(sw, *sc, brokers, cmp(e.Cluster.Controllers, 3), &o, fail); err != nil {
		return err
	}
	sc.Swarm = &o
	return nil
}

// swarmKinds are the fault kinds a swarm's kinds name: "all" alone (the
// fault kinds), or some of faults.SwarmKinds and the operations a swarm
// draws only when named (faults.SwarmOperations).
func swarmKinds(given []string, fail failFunc) ([]faults.Kind, error) {
	if len(given) == 0 {
		return nil, fail("swarm: give kinds (\"all\", or fault kinds)", "faults", "swarm", "kinds")
	}
	drawable := slices.Concat(faults.SwarmKinds(), faults.SwarmOperations(), faults.SwarmTopicOperations(), faults.SwarmMemberOperations())
	var kinds []faults.Kind
	for _, k := range given {
		switch {
		case k == "all" && len(given) == 1:
			kinds = faults.SwarmKinds()
		case slices.Contains(drawable, faults.Kind(k)):
			kinds = append(kinds, faults.Kind(k))
		default:
			names := make([]string, 0, len(drawable))
			for _, sk := range drawable {
				names = append(names, string(sk))
			}
			return nil, fail(fmt.Sprintf("swarm kind %q: want \"all\" alone, or some of %s", k, strings.Join(names, ", ")), "faults", "swarm", "kinds")
		}
	}
	return kinds, nil
}

// cmp is v, or def when v is zero.
func cmp(v, def int) int {
	if v == 0 {
		return def
	}
	return v
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// topicSettings are the settings a topic may override: model's "topic"
// group, the fields of model.TopicConfig (the controller's
// topicConfigNames, which CreateTopics accepts).
func topicSettings() []string {
	var out []string
	for _, d := range model.SettingDocs() {
		if d.Group == "topic" {
			out = append(out, d.Name)
		}
	}
	return out
}

// scheduleFirstLine is the line of the file an inline schedule's first
// line is on: the key's own for a one-line string, the next one for a
// multi-line string that starts with a newline (TOML drops it).
func scheduleFirstLine(data []byte) int {
	line, _ := locateKey(data, []string{"faults", "schedule"})
	if line == 0 {
		return 1
	}
	l := strings.TrimSpace(strings.Split(string(data), "\n")[line-1])
	_, v, _ := strings.Cut(l, "=")
	if v = strings.TrimSpace(v); v == `"""` || v == "'''" {
		return line + 1
	}
	return line
}
