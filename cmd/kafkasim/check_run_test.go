package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"syscall"
	"testing"

	"kafkasim/checkers"
	"kafkasim/model"
)

// checkOutput is the part of check -json the tests read.
type checkOutput struct {
	Valid      checkers.Valid  `json:"valid"`
	Violations []violationJSON `json:"violations"`
	NotChecked []struct {
		Name  string   `json:"name"`
		Needs []string `json:"needs"`
	} `json:"not_checked"`
	Settings []settingValue `json:"settings"`
	Run      *struct {
		Scenario  string          `json:"scenario"`
		Seed      uint64          `json:"seed"`
		SameAsRun bool            `json:"same_as_run"`
		Added     []violationJSON `json:"added"`
	} `json:"run"`
}

func decodeCheck(t *testing.T, out string) checkOutput {
	t.Helper()
	var c checkOutput
	if err := json.Unmarshal([]byte(out), &c); err != nil {
		t.Fatalf("check -json: %v\n%s", err, out)
	}
	return c
}

// runOut runs a scenario with -out into a new directory and returns the
// directory, the exit code and the run's own verdict and findings (from
// result.json).
func runOut(t *testing.T, args ...string) (string, int, checkers.Valid, []violationJSON) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "run")
	code, _, errs := runCmd(append([]string{"run", "-out", dir}, args...)...)
	if code == 2 {
		t.Fatalf("run %v: exit 2: %s", args, errs)
	}
	b, err := os.ReadFile(filepath.Join(dir, "result.json"))
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		Valid      checkers.Valid `json:"valid"`
		Violations []struct {
			Checker   string   `json:"checker"`
			Anomaly   string   `json:"anomaly"`
			Partition string   `json:"partition"`
			Offsets   []int64  `json:"offsets"`
			Values    []string `json:"values"`
			Ops       []int    `json:"ops"`
			Error     bool     `json:"error"`
			Promise   string   `json:"promise"`
			Detail    string   `json:"detail"`
		} `json:"violations"`
	}
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatal(err)
	}
	var vs []violationJSON
	for _, v := range res.Violations {
		vj := violationJSON{Checker: v.Checker, Anomaly: v.Anomaly, Partition: v.Partition, Error: v.Error, Promise: v.Promise, Values: v.Values, Ops: v.Ops, Detail: v.Detail}
		if v.Partition == "/0" {
			vj.Partition = "" // result.json writes a group-wide finding's empty partition so
		}
		for _, o := range v.Offsets {
			vj.Offsets = append(vj.Offsets, model.Offset(o))
		}
		vs = append(vs, vj)
	}
	return dir, code, res.Valid, vs
}

// TestCheckRunReachesTheRunsVerdict: a failing historical run, a passing
// safe run and a group run, each saved by run -out and judged again by
// check -run: the same verdict, the same findings in the same order, the
// same exit code; and check -history on the same directory's history
// alone says what it could not check.
func TestCheckRunReachesTheRunsVerdict(t *testing.T) {
	for _, tc := range []struct {
		args []string
		exit int
	}{
		{[]string{"-scenario", "kip101-hw-truncation", "-seed", "7"}, 1},
		{[]string{"-scenario", "leader-failover", "-seed", "2", "-set", "replica.lag.time.max.ms=20s"}, 0},
		{[]string{"-scenario", "group-rebalance", "-seed", "3"}, 0},
	} {
		t.Run(tc.args[1], func(t *testing.T) {
			dir, runExit, valid, findings := runOut(t, tc.args...)
			if runExit != tc.exit {
				t.Fatalf("run: exit %d, want %d", runExit, tc.exit)
			}
			code, out, errs := runCmd("check", "-run", dir, "-json")
			if code != runExit {
				t.Fatalf("check -run: exit %d, the run's %d\n%s%s", code, runExit, out, errs)
			}
			c := decodeCheck(t, out)
			if c.Valid != valid || c.Run == nil || !c.Run.SameAsRun || c.Run.Scenario != tc.args[1] {
				t.Fatalf("check -run: %s, run %+v; the run: %s", c.Valid, c.Run, valid)
			}
			if len(c.Violations) == 0 {
				c.Violations = nil
			}
			if !reflect.DeepEqual(c.Violations, findings) {
				t.Fatalf("check -run findings differ from the run's:\n%+v\n%+v", c.Violations, findings)
			}
			for _, s := range c.Settings {
				if s.Source != "recorded" {
					t.Errorf("setting %+v: a run directory's settings are recorded", s)
				}
			}
			// The table says the same.
			code, out, _ = runCmd("check", "-run", dir)
			if code != runExit || !strings.Contains(out, "the run's own verdict: "+string(valid)) {
				t.Fatalf("check -run table: exit %d\n%s", code, out)
			}
		})
	}
}

// TestCheckRunCatchesATamperedReplicaLog: one record of one replica changed
// below the high watermark; check -run reports the divergence, says the
// verdict is not the run's, and fails.
func TestCheckRunCatchesATamperedReplicaLog(t *testing.T) {
	dir, code, valid, _ := runOut(t, "-scenario", "baseline", "-seed", "4")
	if code != 0 || valid != checkers.ValidOK {
		t.Fatalf("baseline: exit %d, %s", code, valid)
	}
	path := filepath.Join(dir, "replicas.jsonl")
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitN(string(b), "\n", 3)
	old := `{"Offset":0,"Value":"`
	if !strings.Contains(lines[1], old) {
		t.Fatalf("the second replica holds no offset 0: %.200s", lines[1])
	}
	lines[1] = strings.Replace(lines[1], old, old+"tampered-", 1)
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ := runCmd("check", "-run", dir)
	if code != 1 || !strings.Contains(out, "replica-divergence") || !strings.Contains(out, "DIFFERS from the run's own verdict: the run found ok") {
		t.Fatalf("tampered: exit %d\n%s", code, out)
	}
	code, out, _ = runCmd("check", "-run", dir, "-json")
	c := decodeCheck(t, out)
	diverged := slices.ContainsFunc(c.Run.Added, func(v violationJSON) bool { return v.Anomaly == checkers.ReplicaDivergence && v.Error })
	if code != 1 || c.Run.SameAsRun || !diverged {
		t.Fatalf("tampered -json: exit %d, %+v", code, c.Run)
	}
}

// TestCheckHistoryNamesWhatItCouldNotCheck: the history of a failing
// kip101-hw-truncation run judged alone passes, and says so honestly: it
// names every check that needs more than a history (from the checkers'
// own table) and every setting it assumed.
func TestCheckHistoryNamesWhatItCouldNotCheck(t *testing.T) {
	dir, _, _, _ := runOut(t, "-scenario", "kip101-hw-truncation", "-seed", "7")
	code, out, _ := runCmd("check", "-history", filepath.Join(dir, "history.jsonl"))
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	for _, r := range checkers.Requirements() {
		if !strings.Contains(out, "  "+r.Name+" (") {
			t.Errorf("the report does not name %q:\n%s", r.Name, out)
		}
	}
	for _, want := range []string{"not checked: a history alone", "acks=all (assumed)", "enable.idempotence=true (assumed)", "auto.offset.reset=earliest (assumed)"} {
		if !strings.Contains(out, want) {
			t.Errorf("the report lacks %q:\n%s", want, out)
		}
	}
	code, out, _ = runCmd("check", "-history", filepath.Join(dir, "history.jsonl"), "-json")
	c := decodeCheck(t, out)
	if code != 0 || len(c.NotChecked) != len(checkers.Requirements()) || c.NotChecked[0].Name != "replica agreement" || len(c.NotChecked[0].Needs) != 1 {
		t.Fatalf("-json not_checked: %+v", c.NotChecked)
	}
}

// dupJSONL: the value a written at two offsets, a duplicate: an error
// only if the producer was idempotent.
const dupJSONL = `{"process":0,"type":"ok","f":"send","time":0,"end":1,"tp":"t/0","value":"a","offset":0}
{"process":0,"type":"ok","f":"send","time":1,"end":2,"tp":"t/0","value":"a","offset":1}
{"process":1,"type":"ok","f":"poll","time":3,"end":4,"records":{"t/0":[[0,"a"],[1,"a"]]}}
`

// TestCheckHistorySettings: -set states the recording cluster's settings
// by Kafka's names, and the classification follows them.
func TestCheckHistorySettings(t *testing.T) {
	p := writeFile(t, "dup.jsonl", dupJSONL)
	code, out, _ := runCmd("check", "-history", p)
	if code != 1 || !strings.Contains(out, "duplicate") || !strings.Contains(out, "ERROR") {
		t.Fatalf("idempotence assumed: exit %d\n%s", code, out)
	}
	code, out, _ = runCmd("check", "-history", p, "-set", "enable.idempotence=false")
	if code != 0 || !strings.Contains(out, "allowed") || !strings.Contains(out, "enable.idempotence=false (given)") {
		t.Fatalf("-set enable.idempotence=false: exit %d\n%s", code, out)
	}
	// acks=1 without enable.idempotence: Kafka turns idempotence off.
	code, out, _ = runCmd("check", "-history", p, "-set", "acks=1")
	if code != 0 || !strings.Contains(out, "enable.idempotence=false (implied, acks=1") {
		t.Fatalf("-set acks=1: exit %d\n%s", code, out)
	}
	// The older shorthand says the same.
	if code, _, _ := runCmd("check", "-history", p, "-idempotent=false"); code != 0 {
		t.Fatalf("-idempotent=false: exit %d", code)
	}
	// A setting the checks do not read is accepted and named.
	code, out, _ = runCmd("check", "-history", p, "-set", "enable.idempotence=false", "-set", "truncation=high-watermark")
	if code != 0 || !strings.Contains(out, "given but not read by any check: truncation=high-watermark") {
		t.Fatalf("unread setting: exit %d\n%s", code, out)
	}
}

func TestCheckSettingsBadInput(t *testing.T) {
	p := writeFile(t, "dup.jsonl", dupJSONL)
	dir, _, _, _ := runOut(t, "-scenario", "kip101-hw-truncation", "-seed", "7")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-history", p, "-set", "no.such=1"}, `unknown configuration "no.such"`},
		{[]string{"-history", p, "-set", "acks=2"}, `acks: "2" is not one of 0, 1, all`},
		{[]string{"-history", p, "-set", "acks"}, "want name=value"},
		{[]string{"-history", p, "-idempotent=false", "-set", "enable.idempotence=true"}, "enable.idempotence given twice"},
		{[]string{"-history", p, "-set", "enable.idempotence=true", "-set", "acks=1"}, "enable.idempotence=true requires acks=all"},
		{[]string{"-run", dir, "-set", "acks=1"}, "-set applies to -history"},
		{[]string{"-run", dir, "-history", p}, "not both"},
	} {
		code, out, errs := runCmd(append([]string{"check"}, c.args...)...)
		if code != 2 || out != "" || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2, nothing, %q", c.args, code, out, errs, c.want)
		}
	}
}

// TestCheckRunBadDirectory: a missing or malformed file of a run directory
// is named with its line, exit 2, and nothing is written.
func TestCheckRunBadDirectory(t *testing.T) {
	good, _, _, _ := runOut(t, "-scenario", "kip101-hw-truncation", "-seed", "7")
	copyDir := func() string {
		dir := filepath.Join(t.TempDir(), "copy")
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"run.json", "history.jsonl", "replicas.jsonl", "observations.jsonl"} {
			b, err := os.ReadFile(filepath.Join(good, name))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return dir
	}
	missing := copyDir()
	os.Remove(filepath.Join(missing, "observations.jsonl"))
	corrupt := copyDir()
	if err := os.WriteFile(filepath.Join(corrupt, "replicas.jsonl"), []byte("{\"Broker\":1,\"TP\":\"t/0\"}\n{\"Broker\":\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ dir, want string }{
		{missing, filepath.Join(missing, "observations.jsonl") + ": missing"},
		{corrupt, filepath.Join(corrupt, "replicas.jsonl") + ":2: "},
		{filepath.Join(t.TempDir(), "nothing"), "run.json: missing"},
	} {
		vis := filepath.Join(t.TempDir(), "vis")
		code, out, errs := runCmd("check", "-run", c.dir, "-out", vis)
		if code != 2 || out != "" || !strings.Contains(errs, c.want) {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want 2, nothing, %q", c.dir, code, out, errs, c.want)
		}
		if _, err := os.Stat(vis); err == nil {
			t.Errorf("%s: bad input wrote %s", c.dir, vis)
		}
	}
}

// TestRunOutNeverDestroysWhatItNames: -out naming a non-empty directory, a
// file, a symbolic link or a FIFO is refused before the run, and what it
// names is left as it was; an empty directory is filled; nothing
// temporary is left beside it.
func TestRunOutNeverDestroysWhatItNames(t *testing.T) {
	parent := t.TempDir()
	full := filepath.Join(parent, "full")
	os.Mkdir(full, 0o755)
	os.WriteFile(filepath.Join(full, "keep.txt"), []byte("mine"), 0o644)
	file := filepath.Join(parent, "file")
	os.WriteFile(file, []byte("mine"), 0o644)
	link := filepath.Join(parent, "link")
	target := filepath.Join(parent, "target")
	os.Mkdir(target, 0o755)
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(parent, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	before := listDir(t, parent)
	for _, c := range []struct{ path, want string }{
		{full, "is not empty"},
		{file, "not a directory"},
		{link, "symbolic link"},
		{fifo, "not a directory"},
	} {
		code, out, errs := runCmd("run", "-scenario", "baseline", "-seed", "1", "-out", c.path)
		if code != 2 || out != "" || !strings.Contains(errs, c.want) {
			t.Errorf("-out %s: exit %d, stdout %q, stderr %q; want 2, nothing, %q", c.path, code, out, errs, c.want)
		}
	}
	if after := listDir(t, parent); !reflect.DeepEqual(before, after) {
		t.Fatalf("refused runs changed the folder:\n%v\n%v", before, after)
	}
	if b, _ := os.ReadFile(filepath.Join(full, "keep.txt")); string(b) != "mine" {
		t.Fatal("the non-empty directory's file changed")
	}
	if names := listDir(t, target); len(names) != 0 {
		t.Fatalf("the link's target got %v", names)
	}
	empty := filepath.Join(parent, "empty")
	os.Mkdir(empty, 0o755)
	if code, _, errs := runCmd("run", "-scenario", "baseline", "-seed", "1", "-out", empty); code != 0 {
		t.Fatalf("-out an empty directory: exit %d: %s", code, errs)
	}
	if _, err := os.Stat(filepath.Join(empty, "run.json")); err != nil {
		t.Fatal(err)
	}
	for _, name := range listDir(t, parent) {
		if strings.Contains(name, ".tmp-") {
			t.Fatalf("a temporary directory was left: %s", name)
		}
	}
}

func listDir(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range es {
		out = append(out, e.Name()+" "+e.Type().String())
	}
	return out
}
