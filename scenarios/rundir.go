package scenarios

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"kafkasim/checkers"
	"kafkasim/internal/atomicfile"
	"kafkasim/model"
)

// A run directory holds everything the checkers judged in one run, so that
// the run can be judged again without running it (CheckRun, kafkasim check
// -run): the run's identity and settings (run.json), the history
// (history.jsonl, model's format), the replicas' final logs
// (replicas.jsonl) and what the cluster reported while the run went
// (observations.jsonl). Every file is written in one fixed order: struct
// fields in declaration order, maps (the configuration) by sorted key,
// slices in the order the checkers were given them.

// RunFormat names the version of the run directory's format. A reader
// refuses any other: a new field or file that changes what the checkers
// read is a new version.
const RunFormat = "kafkasim-run/1"

// The files of a run directory that CheckRun reads.
const (
	RunFile          = "run.json"
	HistoryFile      = "history.jsonl"
	ReplicasFile     = "replicas.jsonl"
	ObservationsFile = "observations.jsonl"
)

// RunManifest is run.json: what ran, with which settings, and what the
// checkers found.
type RunManifest struct {
	Format string `json:"format"` // RunFormat
	// Version is the kafkasim build that ran it (Version()).
	Version  string `json:"kafkasim_version"`
	Scenario string `json:"scenario"`
	Seed     uint64 `json:"seed"`
	// Set is every -set of the run, as given.
	Set []string `json:"set"`
	// Schedule is the run's faults in the schedule-file form;
	// ScheduleGiven says a schedule file replaced the scenario's own.
	Schedule      string `json:"schedule"`
	ScheduleGiven bool   `json:"schedule_given"`
	// ExperimentHash is the SHA-256 of the experiment file the scenario
	// was read from ("" for a catalog scenario); the directory keeps its
	// copy, experiment.toml.
	ExperimentHash string `json:"experiment_sha256,omitempty"`
	// Config is every configuration value of the run, by Kafka name (after
	// Set). The checkers read the names CheckSettings lists.
	Config map[string]string `json:"config"`
	// LinearizabilityBudget bounds porcupine, as Go writes a duration.
	LinearizabilityBudget string `json:"linearizability_budget"`
	// DiskLost are the partitions whose every ISR and ELR replica lost its
	// unflushed data (checkers.Input.DiskLost).
	DiskLost []model.TopicPartition `json:"disk_lost"`
	// Stranded are the partitions Kafka's controller left without a
	// leader it may elect (checkers.Input.Stranded); absent when none.
	Stranded []model.TopicPartition `json:"stranded,omitempty"`
	// Liveness is what was stuck when the liveness phase ended ("" when the
	// cluster converged or the phase was skipped). It was judged on the
	// live cluster and is recorded, not judged again.
	Liveness string `json:"liveness"`
	// Valid and Violations are the checkers' verdict and findings.
	Valid      checkers.Valid `json:"valid"`
	Violations []Finding      `json:"violations"`
}

// Finding is a checkers.Violation as a run directory writes it: the
// partition as "topic/partition", "" for a finding about a whole group or
// cluster.
type Finding struct {
	Checker   string         `json:"checker"`
	Anomaly   string         `json:"anomaly"`
	Partition string         `json:"partition"`
	Offsets   []model.Offset `json:"offsets,omitempty"`
	Values    []string       `json:"values,omitempty"`
	Ops       []int          `json:"ops,omitempty"`
	Error     bool           `json:"error"`
	Promise   string         `json:"promise,omitempty"`
	Detail    string         `json:"detail"`
	// Jepsen's key for the finding and its class (error or allowed), where
	// Jepsen's Kafka checker has the analysis.
	Jepsen      string `json:"jepsen,omitempty"`
	JepsenClass string `json:"jepsen_class,omitempty"`
	// Txn: a dependency cycle's steps, or an internal send's distance in
	// the version order (the transactional analyses).
	Txn *checkers.TxnDetail `json:"txn,omitempty"`
}

// FindingOf writes v as a Finding.
func FindingOf(v checkers.Violation) Finding {
	f := Finding{Checker: v.Checker, Anomaly: v.Anomaly, Offsets: v.Offsets, Values: v.Values, Ops: v.Ops, Error: v.Error, Promise: v.Promise, Detail: v.Detail,
		Jepsen: v.Jepsen, JepsenClass: v.JepsenClass, Txn: v.Txn}
	if v.Partition.Topic != "" {
		f.Partition = v.Partition.String()
	}
	return f
}

// FindingsOf writes every violation as a Finding, in order.
func FindingsOf(vs []checkers.Violation) []Finding {
	out := make([]Finding, len(vs))
	for i, v := range vs {
		out[i] = FindingOf(v)
	}
	return out
}

// observationLine is one line of observations.jsonl: exactly one field is
// set. Each observation is model's own type, the one the checkers read, so
// that a field added there is saved without a change here (and the
// round-trip test sees it). Lines of older run directories are read too
// (rundir_legacy.go).
type observationLine struct {
	Leader         *model.LeaderObservation         `json:"leader,omitempty"`
	ISR            *model.ISRObservation            `json:"isr,omitempty"`
	HighWatermark  *model.HWObservation             `json:"high_watermark,omitempty"`
	Generation     *model.GenerationObservation     `json:"generation,omitempty"`
	Committed      *model.CommittedObservation      `json:"committed,omitempty"`
	QuorumVoters   []model.BrokerID                 `json:"quorum_voters,omitempty"`
	QuorumLeader   *model.QuorumLeaderObservation   `json:"quorum_leader,omitempty"`
	QuorumHW       *model.QuorumHWObservation       `json:"quorum_high_watermark,omitempty"`
	QuorumApplied  *model.QuorumAppliedObservation  `json:"quorum_applied,omitempty"`
	QuorumSnapshot *model.QuorumSnapshotObservation `json:"quorum_snapshot,omitempty"`
	Assignment     *model.AssignmentObservation     `json:"assignment,omitempty"`
	Deletion       *model.TopicDeletionObservation  `json:"deletion,omitempty"`
}

// set counts the fields a line sets.
func (l *observationLine) set() int {
	n := 0
	for _, ok := range []bool{l.Leader != nil, l.ISR != nil, l.HighWatermark != nil, l.Generation != nil, l.Committed != nil,
		l.QuorumVoters != nil, l.QuorumLeader != nil, l.QuorumHW != nil, l.QuorumApplied != nil, l.QuorumSnapshot != nil, l.Assignment != nil, l.Deletion != nil} {
		if ok {
			n++
		}
	}
	return n
}

// SaveRun writes the run directory files of res into dir, which must
// exist. Each file is written under a temporary name and renamed, so a
// failure leaves no half-written file (kafkasim run -out writes the whole
// directory under a temporary name, too).
func SaveRun(dir string, res Result) error {
	m := RunManifest{
		Format: RunFormat, Version: Version(), Scenario: res.Scenario, Seed: res.Seed,
		Set: res.Set, Schedule: res.Schedule, ScheduleGiven: res.ScheduleGiven, ExperimentHash: res.ExperimentHash,
		Config:                map[string]string{},
		LinearizabilityBudget: res.CheckOptions.LinearizabilityBudget.String(),
		DiskLost:              res.DiskLost,
		Stranded:              res.Stranded,
		Liveness:              res.Liveness,
		Valid:                 res.Valid,
		Violations:            FindingsOf(res.Violations),
	}
	if m.Set == nil {
		m.Set = []string{}
	}
	if m.DiskLost == nil {
		m.DiskLost = []model.TopicPartition{}
	}
	for _, name := range res.Config.Names() {
		m.Config[name] = res.Config.Get(name)
	}
	files := []struct {
		name string
		fill func(io.Writer) error
	}{
		{RunFile, func(w io.Writer) error {
			enc := json.NewEncoder(w)
			enc.SetIndent("", "  ")
			return enc.Encode(m)
		}},
		{HistoryFile, func(w io.Writer) error { return model.WriteHistory(w, res.History) }},
		{ReplicasFile, func(w io.Writer) error {
			enc := json.NewEncoder(w)
			for i := range res.Replicas {
				if err := enc.Encode(&res.Replicas[i]); err != nil {
					return err
				}
			}
			return nil
		}},
		{ObservationsFile, func(w io.Writer) error { return writeObservations(w, &res.Observed) }},
	}
	for _, f := range files {
		if err := atomicfile.Write(filepath.Join(dir, f.name), f.fill); err != nil {
			return err
		}
	}
	return nil
}

func writeObservations(w io.Writer, o *model.Observations) error {
	enc := json.NewEncoder(w)
	var lines []observationLine
	for i := range o.Leaders {
		lines = append(lines, observationLine{Leader: &o.Leaders[i]})
	}
	for i := range o.ISRs {
		lines = append(lines, observationLine{ISR: &o.ISRs[i]})
	}
	for i := range o.HighWatermarks {
		lines = append(lines, observationLine{HighWatermark: &o.HighWatermarks[i]})
	}
	for i := range o.Generations {
		lines = append(lines, observationLine{Generation: &o.Generations[i]})
	}
	for i := range o.Committed {
		lines = append(lines, observationLine{Committed: &o.Committed[i]})
	}
	q := &o.Quorum
	if q.Voters != nil {
		lines = append(lines, observationLine{QuorumVoters: q.Voters})
	}
	for i := range q.Leaders {
		lines = append(lines, observationLine{QuorumLeader: &q.Leaders[i]})
	}
	for i := range q.HighWatermarks {
		lines = append(lines, observationLine{QuorumHW: &q.HighWatermarks[i]})
	}
	for i := range q.Applied {
		lines = append(lines, observationLine{QuorumApplied: &q.Applied[i]})
	}
	for i := range q.Snapshots {
		lines = append(lines, observationLine{QuorumSnapshot: &q.Snapshots[i]})
	}
	for i := range o.Assignments {
		lines = append(lines, observationLine{Assignment: &o.Assignments[i]})
	}
	for i := range o.Deletions {
		lines = append(lines, observationLine{Deletion: &o.Deletions[i]})
	}
	for i := range lines {
		if err := enc.Encode(&lines[i]); err != nil {
			return err
		}
	}
	return nil
}

// SavedRun is a run directory read back.
type SavedRun struct {
	Manifest RunManifest
	// Input is what the checkers judged; Options what the configuration
	// promised them (CheckOptions of the saved configuration, with the
	// saved porcupine budget).
	Input   checkers.Input
	Options checkers.Options
}

// LoadRun reads a run directory. A missing or malformed file is an error
// naming the file and, where one applies, the line.
func LoadRun(dir string) (SavedRun, error) {
	var s SavedRun
	if err := s.loadManifest(filepath.Join(dir, RunFile)); err != nil {
		return s, err
	}
	if err := s.loadHistory(filepath.Join(dir, HistoryFile)); err != nil {
		return s, err
	}
	if err := s.loadReplicas(filepath.Join(dir, ReplicasFile)); err != nil {
		return s, err
	}
	if err := loadObservations(filepath.Join(dir, ObservationsFile), &s.Input.Observations); err != nil {
		return s, err
	}
	return s, nil
}

// loadManifest reads the run file: the manifest, the options it promised
// the checkers and the partitions that lost their disks.
func (s *SavedRun) loadManifest(path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fileError(path, err)
	}
	if err := decodeManifest(path, data, &s.Manifest); err != nil {
		return err
	}
	if s.Options, err = manifestOptions(path, data, &s.Manifest); err != nil {
		return err
	}
	s.Input.DiskLost = s.Manifest.DiskLost
	if len(s.Input.DiskLost) == 0 {
		s.Input.DiskLost = nil // as the run gave it: no partition lost its disks
	}
	s.Input.Stranded = s.Manifest.Stranded
	return nil
}

// loadHistory reads the history file.
func (s *SavedRun) loadHistory(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fileError(path, err)
	}
	s.Input.History, err = model.ReadHistory(f, path)
	f.Close()
	return err
}

// loadReplicas reads the replica logs, one a line, each naming its
// partition and holding its records in offset order.
func (s *SavedRun) loadReplicas(path string) error {
	return readLines(path, func(line int, b []byte) error {
		var r checkers.ReplicaLog
		if err := decodeStrict(b, &r); err != nil {
			return err
		}
		if r.TP.Topic == "" {
			return fmt.Errorf("a replica log without its partition")
		}
		for i := 1; i < len(r.Records); i++ {
			if r.Records[i].Offset <= r.Records[i-1].Offset {
				return fmt.Errorf("%s on %s: offset %d after %d: records must be in offset order", r.TP, r.Broker, r.Records[i].Offset, r.Records[i-1].Offset)
			}
		}
		s.Input.Replicas = append(s.Input.Replicas, r)
		return nil
	})
}

// loadObservations reads the observations file into o, exactly one
// observation a line (a line of an older form read as that form).
func loadObservations(path string, o *model.Observations) error {
	return readLines(path, func(line int, b []byte) error {
		var l observationLine
		if err := decodeStrict(b, &l); err != nil && !decodeLegacyObservation(b, &l) {
			return err
		}
		if l.set() != 1 {
			return fmt.Errorf("want exactly one observation on a line, got %d", l.set())
		}
		return l.addTo(o)
	})
}

// addTo adds the line's one observation to o.
func (l *observationLine) addTo(o *model.Observations) error {
	switch {
	case l.Leader != nil:
		o.Leaders = append(o.Leaders, *l.Leader)
	case l.ISR != nil:
		o.ISRs = append(o.ISRs, *l.ISR)
	case l.HighWatermark != nil:
		o.HighWatermarks = append(o.HighWatermarks, *l.HighWatermark)
	case l.Generation != nil:
		o.Generations = append(o.Generations, *l.Generation)
	case l.Committed != nil:
		o.Committed = append(o.Committed, *l.Committed)
	case l.QuorumVoters != nil:
		if o.Quorum.Voters != nil {
			return fmt.Errorf("the quorum's voters given twice")
		}
		o.Quorum.Voters = l.QuorumVoters
	case l.QuorumLeader != nil:
		o.Quorum.Leaders = append(o.Quorum.Leaders, *l.QuorumLeader)
	case l.QuorumHW != nil:
		o.Quorum.HighWatermarks = append(o.Quorum.HighWatermarks, *l.QuorumHW)
	case l.QuorumApplied != nil:
		o.Quorum.Applied = append(o.Quorum.Applied, *l.QuorumApplied)
	case l.QuorumSnapshot != nil:
		o.Quorum.Snapshots = append(o.Quorum.Snapshots, *l.QuorumSnapshot)
	case l.Assignment != nil:
		o.Assignments = append(o.Assignments, *l.Assignment)
	case l.Deletion != nil:
		o.Deletions = append(o.Deletions, *l.Deletion)
	}
	return nil
}

// decodeManifest reads run.json strictly: unknown fields, a missing format
// or another version are refused.
func decodeManifest(path string, data []byte, m *RunManifest) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(m); err != nil {
		return jsonError(path, data, err)
	}
	if dec.More() {
		return fmt.Errorf("%s:%d: more than one JSON value", path, lineAt(data, dec.InputOffset()))
	}
	if m.Format != RunFormat {
		return fmt.Errorf("%s:%d: format %q is not %q, the only one this kafkasim reads", path, lineOf(data, `"format"`), m.Format, RunFormat)
	}
	if m.Scenario == "" {
		return fmt.Errorf("%s: no scenario", path)
	}
	switch m.Valid {
	case checkers.ValidOK, checkers.ValidViolation, checkers.ValidUnknown:
	default:
		return fmt.Errorf("%s:%d: valid %q is not ok, violation or unknown", path, lineOf(data, `"valid"`), m.Valid)
	}
	for _, f := range m.Violations {
		if f.Partition != "" {
			if _, err := model.ParseTopicPartition(f.Partition); err != nil {
				return fmt.Errorf("%s:%d: %v", path, lineOf(data, `"partition": "`+f.Partition+`"`), err)
			}
		}
	}
	return nil
}

// manifestOptions rebuilds the checkers' options from the saved
// configuration: Kafka's defaults, then every saved value. Each name the
// checkers read must be there.
func manifestOptions(path string, data []byte, m *RunManifest) (checkers.Options, error) {
	kc := model.DefaultConfig()
	names := make([]string, 0, len(m.Config))
	for name := range m.Config {
		names = append(names, name)
	}
	// kafka.version first: it moves the settings still at its defaults,
	// and every saved value must then stand as saved.
	slices.SortFunc(names, func(a, b string) int {
		switch {
		case a == b:
			return 0
		case a == "kafka.version":
			return -1
		case b == "kafka.version":
			return 1
		}
		return strings.Compare(a, b)
	})
	for _, name := range names {
		if err := kc.Set(name, m.Config[name]); err != nil {
			return checkers.Options{}, fmt.Errorf("%s:%d: config: %v", path, lineOf(data, `"`+name+`"`), err)
		}
	}
	for _, name := range CheckSettings() {
		if _, ok := m.Config[name]; !ok {
			return checkers.Options{}, fmt.Errorf("%s: config lacks %s, which the checkers read", path, name)
		}
	}
	opts := CheckOptions(kc)
	budget, err := time.ParseDuration(m.LinearizabilityBudget)
	if err != nil {
		return checkers.Options{}, fmt.Errorf("%s:%d: linearizability_budget %q is not a duration", path, lineOf(data, `"linearizability_budget"`), m.LinearizabilityBudget)
	}
	opts.LinearizabilityBudget = budget
	return opts, nil
}

// readLines calls fn on every non-blank line of a JSON lines file and
// prefixes its error with the file and line.
func readLines(path string, fn func(line int, b []byte) error) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fileError(path, err)
	}
	for n, b := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(b)) == 0 {
			continue
		}
		if err := fn(n+1, b); err != nil {
			return fmt.Errorf("%s:%d: %v", path, n+1, err)
		}
	}
	return nil
}

// decodeStrict reads one JSON value that must fill v exactly.
func decodeStrict(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return fmt.Errorf("more than one JSON value on the line")
	}
	return nil
}

// fileError says a file of the run directory could not be read.
func fileError(path string, err error) error {
	if os.IsNotExist(err) {
		return fmt.Errorf("%s: missing: a run directory holds %s, %s, %s and %s (kafkasim run -out writes them)", path, RunFile, HistoryFile, ReplicasFile, ObservationsFile)
	}
	return fmt.Errorf("%s: %v", path, err)
}

// jsonError places a decoding error of a whole file on its line.
func jsonError(path string, data []byte, err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return fmt.Errorf("%s:%d: %v", path, lineAt(data, syn.Offset), err)
	case errors.As(err, &typ):
		return fmt.Errorf("%s:%d: %v", path, lineAt(data, typ.Offset), err)
	}
	return fmt.Errorf("%s: %v", path, err)
}

// lineAt is the line of a byte offset.
func lineAt(data []byte, off int64) int {
	off = min(max(off, 0), int64(len(data)))
	return 1 + bytes.Count(data[:off], []byte("\n"))
}

// lineOf is the line where needle first appears (1 when it does not).
func lineOf(data []byte, needle string) int {
	i := bytes.Index(data, []byte(needle))
	if i < 0 {
		return 1
	}
	return lineAt(data, int64(i))
}
