package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A txn-chaos run exported with kafkasim export and judged by kafkasim
// check -history F -format jepsen exits as the run was judged; so does a
// run of kafka-17754-delayed-endtxn, which the run judges a violation
// (aborted-read), judged from its EDN alone.
func TestExportJepsenJudgedAsTheRun(t *testing.T) {
	for _, c := range []struct {
		scenario string
		want     int
	}{{"txn-chaos", 0}, {"kafka-17754-delayed-endtxn", 1}} {
		dir := t.TempDir()
		run := filepath.Join(dir, "run")
		if code, _, errs := runCmd("run", "-scenario", c.scenario, "-seed", "1", "-out", run); code != c.want {
			t.Fatalf("%s: run exit %d, want %d: %s", c.scenario, code, c.want, errs)
		}
		edn := filepath.Join(dir, "history.edn")
		if code, _, errs := runCmd("export", "-run", run, "-out", edn); code != 0 {
			t.Fatalf("%s: export exit %d: %s", c.scenario, code, errs)
		}
		code, out, errs := runCmd("check", "-history", edn, "-format", "jepsen", "-json")
		if code != c.want {
			t.Fatalf("%s: check of the export exit %d, the run %d:\n%s%s", c.scenario, code, c.want, out, errs)
		}
		// The same findings, by anomaly, severity and values (the
		// partitions are renamed): the run's result.json and the check's.
		b, err := os.ReadFile(filepath.Join(run, "result.json"))
		if err != nil {
			t.Fatal(err)
		}
		if w, g := exportFindings(t, b), exportFindings(t, []byte(out)); !slices.Equal(w, g) {
			t.Fatalf("%s: the run found %q, the check of its export %q", c.scenario, w, g)
		}
		if c.want == 1 && !strings.Contains(out, "aborted-read") {
			t.Fatalf("%s: check of the export does not find the run's aborted-read:\n%s", c.scenario, out)
		}
	}
}

// exportFindings are the violations of a result.json or check -json
// output as "anomaly error values", sorted.
func exportFindings(t *testing.T, data []byte) []string {
	t.Helper()
	var r struct {
		Violations []struct {
			Anomaly string   `json:"anomaly"`
			Error   bool     `json:"error"`
			Values  []string `json:"values"`
		} `json:"violations"`
	}
	if err := json.Unmarshal(data, &r); err != nil {
		t.Fatalf("%v: %s", err, data)
	}
	var out []string
	for _, v := range r.Violations {
		out = append(out, fmt.Sprint(v.Anomaly, " ", v.Error, " ", v.Values))
	}
	slices.Sort(out)
	return out
}

// export refuses bad flags and an -out that exists, with exit 2 and a
// reason, and replaces the file with -force.
func TestExportRefuses(t *testing.T) {
	dir := t.TempDir()
	hist := filepath.Join(dir, "h.jsonl")
	if err := os.WriteFile(hist, []byte(cleanJSONL), 0o644); err != nil {
		t.Fatal(err)
	}
	taken := filepath.Join(dir, "taken.edn")
	if err := os.WriteFile(taken, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-history", hist}, "-out FILE is required"},
		{[]string{"-out", filepath.Join(dir, "x.edn")}, "give -run DIR or -history FILE"},
		{[]string{"-history", hist, "-run", dir, "-out", filepath.Join(dir, "x.edn")}, "give -run DIR or -history FILE"},
		{[]string{"-history", hist, "-format", "jsonl", "-out", filepath.Join(dir, "x.edn")}, "unknown -format"},
		{[]string{"-history", hist, "-out", taken}, "exists; name a new file, or give -force"},
		{[]string{"-history", hist, "-out", dir}, "is a directory"},
		{[]string{"-history", filepath.Join(dir, "none.jsonl"), "-out", filepath.Join(dir, "x.edn")}, "none.jsonl"},
		{[]string{"-history", hist, "-out", filepath.Join(dir, "no-such-dir", "x.edn")}, "nothing was written"},
	} {
		code, _, errs := runCmd(append([]string{"export"}, c.args...)...)
		if code != 2 || !strings.Contains(errs, c.want) {
			t.Errorf("export %v: exit %d, stderr %q; want 2 and %q", c.args, code, errs, c.want)
		}
	}
	if b, _ := os.ReadFile(taken); string(b) != "keep" {
		t.Fatalf("a refused export changed %s", taken)
	}
	if code, _, errs := runCmd("export", "-history", hist, "-out", taken, "-force"); code != 0 {
		t.Fatalf("-force: exit %d: %s", code, errs)
	}
	if code, _, errs := runCmd("check", "-history", taken); code != 0 {
		t.Fatalf("check of the export: exit %d: %s", code, errs)
	}
}
