package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"kafkasim/scenarios"
)

// kafkasimPrefix starts every kafkasim reproduce line.
const kafkasimPrefix = "go run ./cmd/kafkasim "

// reproduceLines finds the kafkasim reproduce lines in text, however it
// is framed: one per line, in Markdown's backticks, or in HTML (already
// unescaped) up to its next tag.
func reproduceLines(text string) []string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		for {
			i := strings.Index(l, kafkasimPrefix)
			if i < 0 {
				break
			}
			l = l[i:]
			end := len(l)
			if j := strings.IndexAny(l, "`<"); j >= 0 {
				end = j
			}
			out = append(out, strings.TrimSpace(l[:end]))
			l = l[end:]
		}
	}
	return out
}

// shellWords splits a line as a POSIX shell does for the quoting
// scenarios.Reproduce writes: spaces between words, single quotes, and a
// backslash outside them.
func shellWords(t *testing.T, line string) []string {
	t.Helper()
	var words []string
	var w strings.Builder
	inWord, quoted := false, false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quoted && c == '\'':
			quoted = false
		case quoted:
			w.WriteByte(c)
		case c == '\'':
			quoted, inWord = true, true
		case c == '\\' && i+1 < len(line):
			i++
			w.WriteByte(line[i])
			inWord = true
		case c == ' ':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		default:
			w.WriteByte(c)
			inWord = true
		}
	}
	if quoted {
		t.Fatalf("unbalanced quote in %q", line)
	}
	if inWord {
		words = append(words, w.String())
	}
	return words
}

// replayHash runs a printed kafkasim reproduce line, as a shell would
// split it, and returns the run's trace hash.
func replayHash(t *testing.T, line string) string {
	t.Helper()
	words := shellWords(t, line)
	if len(words) < 4 || strings.Join(words[:3], " ")+" " != kafkasimPrefix {
		t.Fatalf("not a kafkasim line: %q", line)
	}
	var out, errb bytes.Buffer
	if code := dispatch(append(words[3:], "-json"), &out, &errb); code > 1 {
		t.Fatalf("%s: exit %d: %s", line, code, errb.String())
	}
	var res scenarios.Result
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatalf("%s: %v", line, err)
	}
	return res.TraceHash
}

// TestRunReproduceLinesReplayTheRun: a run with -set and one with a
// schedule file print lines that carry both, and each replays the run to
// the same trace hash. Without its -set the same seed passes, which is
// the issue the lines must not have; the schedule file is replayed from
// the run directory's copy, and a path with a space and a quote survives
// the shell. check -run of the directory prints the same line.
func TestRunReproduceLinesReplayTheRun(t *testing.T) {
	tmp := t.TempDir()
	withSet := []string{"run", "-scenario", "leader-failover", "-seed", "2", "-set", "acks=1", "-set", "enable.idempotence=false"}
	var out, errb bytes.Buffer
	if code := dispatch(append(withSet, "-json", "-out", filepath.Join(tmp, "set")), &out, &errb); code != 1 {
		t.Fatalf("exit %d, want 1 (this seed loses data under acks=1): %s", code, errb.String())
	}
	var res scenarios.Result
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatal(err)
	}
	lines := reproduceLines(errb.String())
	if len(lines) != 1 || !strings.Contains(lines[0], "-set acks=1 -set enable.idempotence=false") {
		t.Fatalf("reproduce lines %q, want one kafkasim line with both -set", lines)
	}
	if strings.Contains(errb.String(), "go test ") {
		t.Fatalf("a go test line cannot carry -set, yet one was printed:\n%s", errb.String())
	}
	if h := replayHash(t, lines[0]); h != res.TraceHash {
		t.Fatalf("%s: trace hash %s, the run's %s", lines[0], h, res.TraceHash)
	}
	if h := replayHash(t, "go run ./cmd/kafkasim run -scenario leader-failover -seed 2"); h == res.TraceHash {
		t.Fatalf("without -set the run has the same hash %s: the test shows nothing", h)
	}
	// result.json records the settings and the build.
	var saved scenarios.Result
	b, err := os.ReadFile(filepath.Join(tmp, "set", "result.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &saved); err != nil {
		t.Fatal(err)
	}
	if strings.Join(saved.Set, " ") != "acks=1 enable.idempotence=false" || saved.Version == "" || !strings.HasPrefix(saved.GoVersion, "go") || saved.ScheduleFile != "" {
		t.Fatalf("result.json: set %q, schedule file %q, version %q, go %q", saved.Set, saved.ScheduleFile, saved.Version, saved.GoVersion)
	}

	odd := filepath.Join(tmp, "it's a dir")
	if err := os.Mkdir(odd, 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(odd, "faults.schedule")
	if err := os.WriteFile(file, []byte("at 12s crash leader-of t/0\nat 20s restart b1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, runOut := range []string{"", filepath.Join(odd, "run dir")} {
		args := []string{"run", "-scenario", "leader-failover", "-seed", "3", "-set", "acks=1", "-set", "enable.idempotence=false", "-schedule", file, "-json"}
		want := file
		if runOut != "" {
			args = append(args, "-out", runOut)
			want = filepath.Join(runOut, "schedule.txt")
		}
		out.Reset()
		errb.Reset()
		if code := dispatch(args, &out, &errb); code > 1 {
			t.Fatalf("exit %d: %s", code, errb.String())
		}
		var res scenarios.Result
		if err := json.Unmarshal(out.Bytes(), &res); err != nil {
			t.Fatal(err)
		}
		if res.ScheduleFile != want {
			t.Fatalf("schedule file recorded %q, want %q", res.ScheduleFile, want)
		}
		lines := reproduceLines(errb.String())
		if len(lines) != 1 {
			t.Fatalf("reproduce lines %q", lines)
		}
		if words := shellWords(t, lines[0]); words[len(words)-1] != want || words[len(words)-2] != "-schedule" {
			t.Fatalf("%s: does not end with -schedule %s", lines[0], want)
		}
		if h := replayHash(t, lines[0]); h != res.TraceHash {
			t.Fatalf("%s: trace hash %s, the run's %s", lines[0], h, res.TraceHash)
		}
		if runOut == "" {
			continue
		}
		// check -run prints the saved run's line, the same one.
		out.Reset()
		errb.Reset()
		if code := dispatch([]string{"check", "-run", runOut}, &out, &errb); code > 1 {
			t.Fatalf("check -run: exit %d: %s", code, errb.String())
		}
		if again := reproduceLines(out.String()); len(again) != 1 || again[0] != lines[0] {
			t.Fatalf("check -run prints %q, run printed %q", again, lines[0])
		}
	}
}

// TestSweepReproduceLinesReplayTheRun: every reproduce line a sweep
// prints (its summary on stdout, summary.md, index.html) carries the
// sweep's -set and the run's -vary setting, and replays the run that
// results.jsonl records to the same trace hash. The report says what the
// runs were made with.
func TestSweepReproduceLinesReplayTheRun(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "sweep")
	var out, errb bytes.Buffer
	code := dispatch([]string{"sweep", "-scenario", "leader-failover", "-start", "2", "-seeds", "1", "-workers", "2",
		"-set", "enable.idempotence=false", "-vary", "acks=1,all", "-out", dir}, &out, &errb)
	if code != 1 {
		t.Fatalf("exit %d, want 1 (seed 2 fails under acks=1): %s", code, errb.String())
	}
	hashes := map[string]string{} // reproduce line -> trace hash recorded
	f, err := os.Open(filepath.Join(dir, "results.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		var r scenarios.Result
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		if r.Version == "" || r.GoVersion == "" || len(r.Set) != 2 || r.Set[0] != "enable.idempotence=false" || r.Set[1] != r.Vary {
			t.Fatalf("results.jsonl row: set %q vary %q version %q go %q", r.Set, r.Vary, r.Version, r.GoVersion)
		}
		hashes[reproduceLines(scenarios.Reproduce(r.Invocation()))[0]] = r.TraceHash
	}
	md, err := os.ReadFile(filepath.Join(dir, "summary.md"))
	if err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(filepath.Join(dir, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"settings: -set enable.idempotence=false -set acks=1; -set enable.idempotence=false -set acks=all", "schedule: the scenarios' own", "kafkasim: ", "go: go"} {
		if !strings.Contains(string(md), want) || !strings.Contains(html.UnescapeString(string(page)), want) {
			t.Errorf("summary.md or index.html lacks %q", want)
		}
	}
	for where, text := range map[string]string{"stdout": out.String(), "summary.md": string(md), "index.html": html.UnescapeString(string(page))} {
		lines := reproduceLines(text)
		if len(lines) == 0 {
			t.Errorf("%s: no reproduce line for the failing run", where)
		}
		for _, l := range lines {
			want, ok := hashes[l]
			if !ok {
				t.Errorf("%s: %q is no run's reproduce line", where, l)
				continue
			}
			if h := replayHash(t, l); h != want {
				t.Errorf("%s: %s: trace hash %s, results.jsonl's %s", where, l, h, want)
			}
		}
	}
}

// TestGoTestReproduceLineSelectsOneScenario: the go test line, printed
// only for a run the harness can replay (no -set, no schedule file),
// names the scenario by an anchored pattern, which selects it and not a
// scenario whose name merely starts with it.
func TestGoTestReproduceLineSelectsOneScenario(t *testing.T) {
	lines := strings.Split(scenarios.Reproduce(scenarios.Invocation{Scenario: "leader-failover", Seed: 7}), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "go test ./scenarios -run ") || !strings.HasSuffix(lines[0], " -seed 7") {
		t.Fatalf("lines %q", lines)
	}
	words := shellWords(t, lines[0])
	levels := strings.Split(words[4], "/")
	matches := func(name string) bool {
		parts := strings.Split(name, "/")
		for i, p := range levels {
			if ok, err := regexp.MatchString(p, parts[i]); err != nil || !ok {
				return false
			}
		}
		return true
	}
	if !matches("TestScenarios/leader-failover") || matches("TestScenarios/leader-failover-slow") || matches("TestScenarios/x-leader-failover") {
		t.Fatalf("-run %q selects the wrong subtests", words[4])
	}
	for _, inv := range []scenarios.Invocation{
		{Scenario: "leader-failover", Seed: 7, Set: []string{"acks=1"}},
		{Scenario: "leader-failover", Seed: 7, ScheduleFile: "f.schedule"},
	} {
		if got := scenarios.Reproduce(inv); strings.Contains(got, "go test") || len(reproduceLines(got)) != 1 {
			t.Fatalf("%+v: %q", inv, got)
		}
	}
}
