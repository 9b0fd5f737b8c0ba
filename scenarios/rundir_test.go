package scenarios

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"kafkasim/checkers"
	"kafkasim/model"
)

// savedRun runs a catalog scenario and saves it into a fresh directory.
func savedRun(t *testing.T, name string, seed uint64, set ...string) (Result, string) {
	t.Helper()
	sc, ok := Find(name)
	if !ok {
		t.Fatalf("no scenario %s", name)
	}
	res, err := Run(sc, seed, Options{Set: set})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := SaveRun(dir, res); err != nil {
		t.Fatal(err)
	}
	return res, dir
}

// TestASavedRunIsJudgedAgainAsTheRunWas: for a failing historical run, a
// safe run, a group run and a controller run, what the run directory holds
// is exactly what the checkers were given, and judging it again gives the
// run's verdict and findings.
func TestASavedRunIsJudgedAgainAsTheRunWas(t *testing.T) {
	for _, tc := range []struct {
		name  string
		seed  uint64
		valid checkers.Valid
	}{
		{"kip101-hw-truncation", 7, checkers.ValidViolation},
		{"leader-failover", 3, checkers.ValidOK},
		{"group-zombie", 2, checkers.ValidOK}, // its zombie is allowed: Kafka's protocol
		{"controller-failover", 4, checkers.ValidOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, dir := savedRun(t, tc.name, tc.seed, "replica.lag.time.max.ms=30s")
			if res.Valid != tc.valid {
				t.Fatalf("the run itself: %s, want %s", res.Valid, tc.valid)
			}
			s, err := LoadRun(dir)
			if err != nil {
				t.Fatal(err)
			}
			want := checkers.Input{History: res.History, Replicas: res.Replicas, Observations: res.Observed, DiskLost: res.DiskLost}
			for _, part := range []struct {
				what      string
				got, want any
			}{
				// The history as its format writes it: the recorder leaves
				// the offset of an op other than a send at 0, the reader at
				// model.NoOffset, and neither is read.
				{"history", historyText(t, s.Input.History), historyText(t, want.History)},
				{"replicas", s.Input.Replicas, want.Replicas},
				{"observations", s.Input.Observations, want.Observations},
				{"disk lost", s.Input.DiskLost, want.DiskLost},
				{"options", s.Options, res.CheckOptions},
			} {
				if !reflect.DeepEqual(part.got, part.want) {
					t.Errorf("%s read back differs from what the checkers were given", part.what)
				}
			}
			if m := s.Manifest; m.Scenario != tc.name || m.Seed != tc.seed || len(m.Set) != 1 || m.Config["replica.lag.time.max.ms"] != "30s" || m.Version == "" {
				t.Errorf("manifest: %+v", m)
			}
			rc, err := CheckRun(dir)
			if err != nil {
				t.Fatal(err)
			}
			if !rc.Same || rc.Result.Valid != res.Valid || !reflect.DeepEqual(FindingsOf(rc.Result.Violations), FindingsOf(res.Violations)) {
				t.Fatalf("re-check: %s with %d findings (added %v, removed %v), the run: %s with %d", rc.Result.Valid, len(rc.Result.Violations), rc.Added, rc.Removed, res.Valid, len(res.Violations))
			}
		})
	}
}

func historyText(t *testing.T, h model.History) string {
	t.Helper()
	var b strings.Builder
	if err := model.WriteHistory(&b, h); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestATamperedReplicaLogIsCaught changes one committed record of one
// replica in a passing run's directory: the re-check reports the
// divergence, and that it is not the run's verdict.
func TestATamperedReplicaLogIsCaught(t *testing.T) {
	res, dir := savedRun(t, "baseline", 5)
	if res.Valid != checkers.ValidOK || len(res.Replicas) < 2 {
		t.Fatalf("baseline: %s with %d replica logs", res.Valid, len(res.Replicas))
	}
	path := filepath.Join(dir, ReplicasFile)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	old := `{"Offset":1,"Value":"`
	i := strings.Index(lines[1], old)
	if i < 0 {
		t.Fatalf("the second replica holds no offset 1: %.200s", lines[1])
	}
	lines[1] = lines[1][:i] + `{"Offset":1,"Value":"tampered` + lines[1][i+len(old):]
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
		t.Fatal(err)
	}
	rc, err := CheckRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	if rc.Same || rc.Result.Valid != checkers.ValidViolation {
		t.Fatalf("tampered: same %v, verdict %s", rc.Same, rc.Result.Valid)
	}
	found := false
	for _, f := range rc.Added {
		if f.Anomaly == checkers.ReplicaDivergence && f.Error {
			found = true
		}
	}
	if !found || len(rc.Removed) != 0 {
		t.Fatalf("added %v, removed %v: want a replica-divergence", rc.Added, rc.Removed)
	}
}

// TestABrokenRunDirectoryIsNamedByFileAndLine: each way a run directory
// can be damaged is refused with the file, the line where one applies,
// and the reason.
func TestABrokenRunDirectoryIsNamedByFileAndLine(t *testing.T) {
	_, good := savedRun(t, "kip101-hw-truncation", 7)
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(good, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	manifest, replicas, observations := read(RunFile), read(ReplicasFile), read(ObservationsFile)
	secondLine := func(s, with string) string {
		lines := strings.SplitN(s, "\n", 3)
		return lines[0] + "\n" + with + "\n" + lines[2]
	}
	for _, tc := range []struct {
		name    string
		file    string
		content string // "" removes the file
		want    string
	}{
		{"no manifest", RunFile, "", RunFile + ": missing"},
		{"no history", HistoryFile, "", HistoryFile + ": missing"},
		{"no replicas", ReplicasFile, "", ReplicasFile + ": missing"},
		{"manifest not JSON", RunFile, "{\n  \"format\": \"kafkasim-run/1\",\n  oops\n}", RunFile + ":3: invalid character"},
		{"another format", RunFile, strings.Replace(manifest, RunFormat, "kafkasim-run/0", 1), RunFile + `:2: format "kafkasim-run/0"`},
		{"unknown manifest field", RunFile, strings.Replace(manifest, `"seed"`, `"sede"`, 1), `unknown field "sede"`},
		{"bad config value", RunFile, strings.Replace(manifest, `"acks": "all"`, `"acks": "2"`, 1), `: config: acks: "2" is not one of 0, 1, all`},
		{"config lacks a check setting", RunFile, strings.Replace(manifest, `"acks": "all",`, ``, 1), "config lacks acks"},
		{"bad budget", RunFile, strings.Replace(manifest, `"linearizability_budget": "1m0s"`, `"linearizability_budget": "soon"`, 1), `linearizability_budget "soon"`},
		{"replica line not JSON", ReplicasFile, secondLine(replicas, "{"), ReplicasFile + ":2: unexpected EOF"},
		{"replica records out of order", ReplicasFile, secondLine(replicas, `{"Broker":2,"TP":"t/0","LogStart":0,"HW":2,"Records":[{"Offset":1,"Value":"a"},{"Offset":0,"Value":"b"}],"OutOfSync":false}`), ReplicasFile + ":2: t/0 on b2: offset 0 after 1"},
		{"replica of no partition", ReplicasFile, secondLine(replicas, `{"Broker":2}`), ReplicasFile + ":2: a replica log without its partition"},
		{"replica field unknown", ReplicasFile, secondLine(replicas, `{"Broker":2,"TP":"t/0","Leader":true}`), ReplicasFile + `:2: json: unknown field "Leader"`},
		{"two observations on a line", ObservationsFile, secondLine(observations, `{"leader":{"Time":1,"TP":"t/0","Epoch":1,"Leader":1},"quorum_voters":[100]}`), ObservationsFile + ":2: want exactly one observation on a line, got 2"},
		{"no observation on a line", ObservationsFile, secondLine(observations, `{}`), ObservationsFile + ":2: want exactly one observation on a line, got 0"},
		{"bad history", HistoryFile, `{"process":0,"type":"okk","f":"send","time":0,"end":1}` + "\n", HistoryFile + `:1: unknown op type "okk"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, name := range []string{RunFile, HistoryFile, ReplicasFile, ObservationsFile} {
				content := read(name)
				if name == tc.file {
					if tc.content == "" {
						continue
					}
					content = tc.content
				}
				if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			_, err := CheckRun(dir)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), filepath.Join(dir, tc.file)) {
				t.Fatalf("error %v, want one starting with %s and naming %q", err, filepath.Join(dir, tc.file), tc.want)
			}
		})
	}
}

// TestCheckSettingsAreWhatCheckOptionsReads: changing a configuration
// value changes what CheckOptions promises exactly when CheckSettings
// lists its name, so the list a saved run records and check -history
// prints cannot drift from the mapping.
func TestCheckSettingsAreWhatCheckOptionsReads(t *testing.T) {
	base := model.DefaultConfig()
	base.Topic.MinInsyncReplicas = 2
	candidates := []string{"true", "false", "0", "1", "3", "7", "all", "earliest", "none", "high-watermark", "roundrobin", "2s", "never", "3.6", "read_committed"}
	listed := CheckSettings()
	for _, name := range base.Names() {
		kc := base
		changed := false
		for _, v := range candidates {
			kc = base
			if kc.Set(name, v) == nil && kc.Get(name) != base.Get(name) {
				changed = true
				break
			}
		}
		if !changed {
			t.Fatalf("%s: no candidate value changes it", name)
		}
		reads := !reflect.DeepEqual(CheckOptions(kc), CheckOptions(base))
		if in := slices.Contains(listed, name); reads != in {
			t.Errorf("%s: CheckOptions reads it: %v; CheckSettings lists it: %v", name, reads, in)
		}
	}
}

// TestARunDirectoryIsTheSameBytesEveryTime: two runs of one seed write
// identical run directories (no map order, no wall-clock time).
func TestARunDirectoryIsTheSameBytesEveryTime(t *testing.T) {
	_, a := savedRun(t, "group-rebalance", 2)
	_, b := savedRun(t, "group-rebalance", 2)
	for _, name := range []string{RunFile, HistoryFile, ReplicasFile, ObservationsFile} {
		x, err := os.ReadFile(filepath.Join(a, name))
		if err != nil {
			t.Fatal(err)
		}
		y, err := os.ReadFile(filepath.Join(b, name))
		if err != nil {
			t.Fatal(err)
		}
		if string(x) != string(y) || len(x) == 0 {
			t.Errorf("%s: the two runs wrote different bytes (%d and %d)", name, len(x), len(y))
		}
	}
}
