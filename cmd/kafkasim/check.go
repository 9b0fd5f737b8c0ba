package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"kafkasim/checkers"
	"kafkasim/model"
	"kafkasim/reports"
	"kafkasim/scenarios"
)

func init() {
	commands["check"] = command{
		summary: "judge a recorded history (kafkasim JSON lines or Jepsen history.edn), or a saved run directory again",
		run:     runCheck,
	}
}

// runCheck is `kafkasim check`: -history judges a recorded history,
// -run judges a saved run directory again. Bad input (flags, an unreadable
// or malformed file) exits 2 with the file, line and reason on stderr and
// nothing on stdout; a judged history exits 0 when valid, 1 when a
// violation was found (for -run, also a recorded liveness failure), and 3
// when the verdict is unknown (nothing in the history could be judged, or
// a linearizability search ran out of its work budget or wall-clock cap):
// unknown is never a pass.
func runCheck(args []string, stdout, stderr io.Writer) int {
	a, code, ok := parseCheckArgs(args, stderr)
	if !ok {
		return code
	}
	if a.runPath != "" {
		var b *time.Duration
		if a.given["budget"] {
			b = &a.budget
		}
		var w *int64
		if a.given["work"] {
			w = &a.work
		}
		return checkRunDir(a.runPath, b, w, a.out, a.asJSON, a.wide, stdout, stderr)
	}
	code, err := checkHistory(a, stdout, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "kafkasim check: %v\n", err)
		return 2
	}
	return code
}

// checkArgs are the check command's flags.
type checkArgs struct {
	path, runPath, format, out, acks, reset string
	sets                                    setFlags
	asJSON, idempotent, subscribe, wide     bool
	minISR                                  int
	budget                                  time.Duration
	work                                    int64
	given                                   map[string]bool // the flags on the command line
}

// parseCheckArgs reads the check command's flags and checks that they go
// together. When ok is false the command ends with code: 0 for -h, 2 for
// bad flags (already reported).
func parseCheckArgs(args []string, stderr io.Writer) (a checkArgs, code int, ok bool) {
	fs := flag.NewFlagSet("kafkasim check", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&a.path, "history", "", "history `file` to judge (- reads standard input, as jsonl unless -format says jepsen)")
	fs.StringVar(&a.runPath, "run", "", "run `dir`ectory to judge again (written by kafkasim run -out), with the settings it recorded")
	fs.StringVar(&a.format, "format", "", "history format: jsonl or jepsen (default: jepsen for .edn files, else jsonl)")
	fs.BoolVar(&a.asJSON, "json", false, "print one JSON object instead of a table")
	fs.StringVar(&a.out, "out", "", "new `dir`ectory for porcupine's visualization of a non-linearizable partition; refused if it exists and is not an empty directory")
	fs.Var(&a.sets, "set", "a setting of the cluster the history was recorded on, by Kafka's name as run takes it, `key=value` (repeatable); the checks read "+strings.Join(scenarios.CheckSettings(), ", "))
	fs.BoolVar(&a.idempotent, "idempotent", true, "short for -set enable.idempotence=BOOL")
	fs.BoolVar(&a.subscribe, "subscribe", false, "the consumers used subscribe (skips and rewinds across polls are allowed)")
	fs.StringVar(&a.acks, "acks", "all", "short for -set acks=VALUE: all, 1 or 0 (lost writes are errors only with all)")
	fs.StringVar(&a.reset, "reset", "earliest", "short for -set auto.offset.reset=VALUE: earliest, latest or none (with latest, unread records are allowed)")
	fs.IntVar(&a.minISR, "min-isr", 0, "short for -set min.insync.replicas=N (0: not stated, the durability promise is assumed)")
	wide := wideFlag(fs)
	fs.DurationVar(&a.budget, "budget", checkers.DefaultLinearizabilityCap, "porcupine's wall-clock cap, a last resort behind -work (negative: skip linearizability); with -run, the run's own unless given")
	fs.Int64Var(&a.work, "work", 0, fmt.Sprintf("porcupine's work budget per partition, the same on every machine (0: %d; negative: no bound)", checkers.DefaultLinearizabilityWork))
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: kafkasim check -history FILE|- [-format jsonl|jepsen] [-set key=value ...] [-subscribe] [-json] [-out DIR]")
		fmt.Fprintln(stderr, "       kafkasim check -run DIR [-json] [-out DIR]")
		fs.PrintDefaults()
		fmt.Fprintln(stderr, "exit status: 0 valid, 1 violations found, 2 bad input, 3 unknown (nothing to judge, or a check ran out of its budget)")
	}
	if code, ok := parseFlags(fs, args, stderr); !ok {
		return a, code, false
	}
	a.wide = *wide
	a.given = map[string]bool{}
	fs.Visit(func(f *flag.Flag) { a.given[f.Name] = true })
	switch {
	case a.path != "" && a.runPath != "":
		fmt.Fprintln(stderr, "kafkasim check: give -history FILE or -run DIR, not both")
		return a, 2, false
	case a.runPath != "":
		for _, name := range []string{"format", "set", "idempotent", "subscribe", "acks", "reset", "min-isr"} {
			if a.given[name] {
				fmt.Fprintf(stderr, "kafkasim check: -%s applies to -history; a run directory records its settings\n", name)
				return a, 2, false
			}
		}
	case a.path == "":
		fmt.Fprintln(stderr, "kafkasim check: -history FILE or -run DIR is required")
		fs.Usage()
		return a, 2, false
	}
	return a, 0, true
}

// historyReader is the reader of -format, or of the file's extension
// without one.
func historyReader(format, path string) (func(io.Reader, string) (model.History, error), error) {
	if format == "" {
		format = "jsonl"
		if strings.EqualFold(filepath.Ext(path), ".edn") {
			format = "jepsen"
		}
	}
	switch format {
	case "jsonl":
		return model.ReadHistory, nil
	case "jepsen":
		return checkers.ReadJepsenEDN, nil
	}
	return nil, fmt.Errorf("unknown -format %q (want jsonl or jepsen)", format)
}

// checkHistory is check -history: it reads the history and the settings
// it was recorded under, judges it and prints the verdict. An error is bad
// input; nothing is written then.
func checkHistory(a checkArgs, stdout, stderr io.Writer) (int, error) {
	read, err := historyReader(a.format, a.path)
	if err != nil {
		return 2, err
	}
	switch a.acks {
	case "all", "-1", "1", "0":
	default:
		return 2, fmt.Errorf("unknown -acks %q (want all, 1 or 0)", a.acks)
	}
	switch a.reset {
	case "earliest", "latest", "none":
	default:
		return 2, fmt.Errorf("unknown -reset %q (want earliest, latest or none)", a.reset)
	}
	kc, settings, unread, err := historySettings(append(shorthandPairs(a.given, a.idempotent, a.acks, a.reset, a.minISR), a.sets...))
	if err != nil {
		return 2, err
	}
	f, name, err := openHistory(a.path)
	if err != nil {
		return 2, err
	}
	h, err := read(f, name)
	f.Close()
	if err != nil {
		return 2, err
	}
	// -out last among the inputs: a bad history leaves nothing behind.
	od, err := newCheckOut(a.out)
	if err != nil {
		return 2, err
	}

	opts := scenarios.CheckOptions(kc)
	opts.Subscribe = a.subscribe
	// Not a configuration value, but what the consumers did, which the
	// order checks read as well.
	sub := settingValue{Name: "subscribe", Value: strconv.FormatBool(a.subscribe), Source: "assumed", Why: "consumers assign their partitions unless -subscribe says they subscribed"}
	if a.given["subscribe"] {
		sub.Source, sub.Why = "given", ""
	}
	settings = append(settings, sub)
	opts.LinearizabilityBudget = a.budget
	opts.LinearizabilityWork = a.work
	opts.OutDir = od.dir()
	in := checkers.Input{History: h}
	res := checkers.Check(in, opts)
	if err := od.commit(&res); err != nil {
		return 2, err
	}
	rep := checkReport{res: res, ops: len(h), missing: checkers.Missing(&in), settings: settings, unread: unread, wide: a.wide}
	if code := printCheck(stdout, stderr, &rep, a.asJSON); code != 0 {
		return code, nil
	}
	if len(h) == 0 {
		fmt.Fprintln(stderr, "kafkasim check: the history holds no operation: nothing was judged")
		return exitUnknown, nil
	}
	return verdictExit(res), nil
}

// checkReport is what check prints: the verdict, and what it rests on.
type checkReport struct {
	res checkers.Result
	ops int
	// reproduce are a saved run's reproduce lines (see runReproduce).
	reproduce string
	// missing are the checks and excuses the input had nothing for.
	missing []checkers.Requirement
	// settings are the values of what the checks read; unread the given
	// settings they do not read.
	settings []settingValue
	unread   []string
	// run, for -run: the saved run and how the re-check compares.
	run *scenarios.RunCheck
	// wide: print tables whole (-wide).
	wide bool
}

// printCheck renders the report to a buffer first, so that a failure to
// render leaves no partial report behind; it returns 2 on such a failure.
func printCheck(stdout, stderr io.Writer, rep *checkReport, asJSON bool) int {
	var buf bytes.Buffer
	var err error
	if asJSON {
		err = writeCheckJSON(&buf, rep)
	} else {
		err = fitted(&buf, rep.wide, func(w io.Writer) error { return writeCheckTable(w, rep) })
	}
	if err != nil {
		fmt.Fprintf(stderr, "kafkasim check: %v\n", err)
		return 2
	}
	stdout.Write(buf.Bytes())
	return 0
}

// checkJSON is the -json report: ok, and the violations with the fields a
// script needs; what the verdict rests on (the checks the input had
// nothing for, the settings); and, for -run, the saved run.
type checkJSON struct {
	OK              bool                      `json:"ok"`
	Valid           checkers.Valid            `json:"valid"`
	Violations      []violationJSON           `json:"violations"`
	Linearizability []checkers.PartitionCheck `json:"linearizability,omitempty"`
	Notes           []string                  `json:"notes,omitempty"`
	NotChecked      []requirementJSON         `json:"not_checked"`
	Settings        []settingValue            `json:"settings"`
	UnreadSettings  []string                  `json:"unread_settings,omitempty"`
	Run             *runJSON                  `json:"run,omitempty"`
}

type violationJSON struct {
	Checker   string         `json:"checker"`
	Anomaly   string         `json:"anomaly"`
	Partition string         `json:"partition"`
	Error     bool           `json:"error"`
	Promise   string         `json:"promise,omitempty"`
	Offsets   []model.Offset `json:"offsets,omitempty"`
	Values    []string       `json:"values,omitempty"`
	Ops       []int          `json:"ops,omitempty"`
	Detail    string         `json:"detail"`
	// Jepsen's key for the finding and its verdict (error or allowed),
	// where Jepsen's Kafka checker has the analysis.
	Jepsen      string `json:"jepsen,omitempty"`
	JepsenClass string `json:"jepsen_class,omitempty"`
	// Txn: a dependency cycle's steps, or an internal send's distance in
	// the version order (the transactional analyses).
	Txn *checkers.TxnDetail `json:"txn,omitempty"`
}

// requirementJSON is a check (or excuse) the input had nothing for, and
// the parts it lacked.
type requirementJSON struct {
	Name      string   `json:"name"`
	Excuse    bool     `json:"excuse"`
	Anomalies []string `json:"anomalies"`
	Needs     []string `json:"needs"`
}

// runJSON is the saved run a -run report judged again.
type runJSON struct {
	Scenario      string          `json:"scenario"`
	Seed          uint64          `json:"seed"`
	Version       string          `json:"kafkasim_version"`
	Set           []string        `json:"set"`
	ScheduleGiven bool            `json:"schedule_given"`
	Liveness      string          `json:"liveness,omitempty"`
	RecordedValid checkers.Valid  `json:"recorded_valid"`
	SameAsRun     bool            `json:"same_as_run"`
	Added         []violationJSON `json:"added,omitempty"`
	Removed       []violationJSON `json:"removed,omitempty"`
}

func partitionName(tp model.TopicPartition) string {
	if tp.Topic == "" {
		return "" // a group- or cluster-wide finding
	}
	return tp.String()
}

func findingJSON(f scenarios.Finding) violationJSON {
	return violationJSON{
		Checker: f.Checker, Anomaly: f.Anomaly, Partition: f.Partition,
		Error: f.Error, Promise: f.Promise, Offsets: f.Offsets, Values: f.Values, Ops: f.Ops, Detail: f.Detail,
		Jepsen: f.Jepsen, JepsenClass: f.JepsenClass, Txn: f.Txn,
	}
}

func writeCheckJSON(w io.Writer, rep *checkReport) error {
	res := rep.res
	out := checkJSON{
		OK:              res.Valid == checkers.ValidOK,
		Valid:           res.Valid,
		Violations:      []violationJSON{},
		Linearizability: res.Linearizability,
		Notes:           res.Notes,
		NotChecked:      []requirementJSON{},
		Settings:        rep.settings,
		UnreadSettings:  rep.unread,
	}
	for _, v := range res.Violations {
		out.Violations = append(out.Violations, findingJSON(scenarios.FindingOf(v)))
	}
	in := rep.input()
	for _, r := range rep.missing {
		rj := requirementJSON{Name: r.Name, Excuse: r.Excuse, Anomalies: r.Anomalies}
		for _, p := range r.MissingParts(in) {
			rj.Needs = append(rj.Needs, p.String())
		}
		out.NotChecked = append(out.NotChecked, rj)
	}
	if rc := rep.run; rc != nil {
		m := &rc.Run.Manifest
		rj := &runJSON{Scenario: m.Scenario, Seed: m.Seed, Version: m.Version, Set: m.Set, ScheduleGiven: m.ScheduleGiven,
			Liveness: m.Liveness, RecordedValid: m.Valid, SameAsRun: rc.Same}
		for _, f := range rc.Added {
			rj.Added = append(rj.Added, findingJSON(f))
		}
		for _, f := range rc.Removed {
			rj.Removed = append(rj.Removed, findingJSON(f))
		}
		out.Run = rj
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// input is what the report's checks were given, for naming what was
// missing.
func (rep *checkReport) input() *checkers.Input {
	if rep.run != nil {
		return &rep.run.Run.Input
	}
	return &checkers.Input{}
}

func writeCheckTable(w io.Writer, rep *checkReport) error {
	res := rep.res
	if rc := rep.run; rc != nil {
		m := &rc.Run.Manifest
		fmt.Fprintf(w, "run: %s seed %d, kafkasim %s\nreproduce:\n%s\n", m.Scenario, m.Seed, m.Version, rep.reproduce)
	}
	if len(res.Violations) > 0 {
		// By anomaly first: a history with thousands of findings of one
		// kind still shows every kind at the top.
		fmt.Fprintf(w, "%d findings by anomaly:\n", len(res.Violations))
		if err := reports.AnomalyTable(res.Violations).Render(w, rep.wide); err != nil {
			return err
		}
		fmt.Fprintln(w, "every finding:")
		t := reports.Table{Header: []string{"checker", "anomaly", "partition", "severity", "detail"}}
		for _, v := range res.Violations {
			sev := "allowed"
			if v.Error {
				sev = "ERROR"
			}
			name := v.Anomaly
			if v.Jepsen != "" && v.Jepsen != v.Anomaly {
				name += " (" + v.Jepsen + ")"
			}
			t.Rows = append(t.Rows, []string{v.Checker, name, partitionName(v.Partition), sev, v.Detail})
		}
		if err := t.Render(w, rep.wide); err != nil {
			return err
		}
		// Which promise broke, once per promise.
		seen := map[string]bool{}
		for _, v := range res.Violations {
			if v.Error && !seen[v.Promise] {
				seen[v.Promise] = true
				fmt.Fprintf(w, "broken promise: %s\n", v.Promise)
			}
		}
		writeJepsenVerdict(w, res.Violations)
	}
	illegal, unknown := 0, 0
	for _, pc := range res.Linearizability {
		switch pc.Result {
		case "Illegal":
			illegal++
		case "Unknown":
			unknown++
		}
	}
	if len(res.Linearizability) > 0 {
		fmt.Fprintf(w, "linearizability: %d partitions, %d not linearizable, %d unknown\n", len(res.Linearizability), illegal, unknown)
	}
	for _, pc := range res.Linearizability {
		if pc.Visualization != "" {
			fmt.Fprintf(w, "linearizability of %s: see %s\n", pc.TP, pc.Visualization)
		}
	}
	for _, n := range res.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	writeCoverage(w, rep)
	writeSettings(w, rep)
	errs := len(res.Errors())
	fmt.Fprintf(w, "%d ops: %s (%d errors, %d allowed findings)\n", rep.ops, res.Valid, errs, len(res.Violations)-errs)
	if rc := rep.run; rc != nil {
		writeRunComparison(w, rc)
	}
	return nil
}

// writeCoverage names each check the input had nothing for, and each
// excuse it could not apply, with what it would have read.
func writeCoverage(w io.Writer, rep *checkReport) {
	in := rep.input()
	var checks, excuses []checkers.Requirement
	for _, r := range rep.missing {
		if r.Excuse {
			excuses = append(excuses, r)
		} else {
			checks = append(checks, r)
		}
	}
	line := func(r checkers.Requirement) {
		var needs []string
		for _, p := range r.MissingParts(in) {
			needs = append(needs, p.String())
		}
		fmt.Fprintf(w, "  %s (%s): needs %s\n", r.Name, strings.Join(r.Anomalies, ", "), strings.Join(needs, " and "))
	}
	if len(checks) > 0 {
		if rep.run == nil {
			fmt.Fprintln(w, "not checked: a history alone does not hold what these read (check a run directory with -run):")
		} else {
			fmt.Fprintln(w, "not checked: the run recorded nothing of what these read:")
		}
		for _, r := range checks {
			line(r)
		}
	}
	if len(excuses) > 0 {
		if rep.run == nil {
			fmt.Fprintln(w, "not applied: without what these read, the findings they excuse stay errors:")
		} else {
			fmt.Fprintln(w, "not applied: the run recorded nothing of what these read:")
		}
		for _, r := range excuses {
			line(r)
		}
	}
}

// writeSettings says what each setting the checks read was taken to be.
func writeSettings(w io.Writer, rep *checkReport) {
	if rep.run != nil {
		fmt.Fprintln(w, "settings the checks read, as the run recorded them:")
	} else {
		fmt.Fprintln(w, "settings the checks read (state the cluster's with -set NAME=VALUE):")
	}
	for _, s := range rep.settings {
		fmt.Fprintf(w, "  %s=%s (%s", s.Name, s.Value, s.Source)
		if s.Why != "" {
			fmt.Fprintf(w, ", %s", s.Why)
		}
		fmt.Fprintln(w, ")")
	}
	if len(rep.unread) > 0 {
		fmt.Fprintf(w, "  given but not read by any check: %s\n", strings.Join(rep.unread, ", "))
	}
}

// writeRunComparison says whether the re-check reached the run's verdict,
// and what was recorded but not judged again.
func writeRunComparison(w io.Writer, rc *scenarios.RunCheck) {
	m := &rc.Run.Manifest
	if m.Liveness != "" {
		fmt.Fprintf(w, "liveness (judged on the live cluster, recorded, not judged again): %s\n", m.Liveness)
	}
	if rc.Same {
		fmt.Fprintf(w, "the run's own verdict: %s, with the same %d findings\n", m.Valid, len(m.Violations))
		return
	}
	fmt.Fprintf(w, "DIFFERS from the run's own verdict: the run found %s with %d findings\n", m.Valid, len(m.Violations))
	for _, f := range rc.Added {
		fmt.Fprintf(w, "  only now: %s/%s %s: %s\n", f.Checker, f.Anomaly, f.Partition, f.Detail)
	}
	for _, f := range rc.Removed {
		fmt.Fprintf(w, "  only in the run: %s/%s %s: %s\n", f.Checker, f.Anomaly, f.Partition, f.Detail)
	}
	if len(rc.Added) == 0 && len(rc.Removed) == 0 {
		fmt.Fprintln(w, "  the same findings, in another order")
	}
}

// writeJepsenVerdict says what Jepsen's Kafka checker would conclude from
// the same findings (kafka.clj checker: invalid when any error type is not
// in allowed-error-types), with the keys it would list.
func writeJepsenVerdict(w io.Writer, vs []checkers.Violation) {
	var bad, allowed []string
	for _, v := range vs {
		switch {
		case v.Jepsen == "":
		case v.JepsenClass == checkers.JepsenError && !slices.Contains(bad, v.Jepsen):
			bad = append(bad, v.Jepsen)
		case v.JepsenClass == checkers.JepsenAllowed && !slices.Contains(allowed, v.Jepsen):
			allowed = append(allowed, v.Jepsen)
		}
	}
	if len(bad)+len(allowed) == 0 {
		return
	}
	slices.Sort(bad)
	slices.Sort(allowed)
	verdict := "valid"
	if len(bad) > 0 {
		verdict = "invalid"
	}
	fmt.Fprintf(w, "jepsen: %s (error types: %s; allowed: %s)\n", verdict, listOrNone(bad), listOrNone(allowed))
}

func listOrNone(xs []string) string {
	if len(xs) == 0 {
		return "none"
	}
	return strings.Join(xs, ", ")
}
