package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"regexp"
	"sort"
	"strings"
)

// Outcome is a ported case's result in one run of its Go tests.
type Outcome int

const (
	// NotRun: no result, because the tests were not run (the repository's
	// own check) or their package did not build.
	NotRun Outcome = iota
	Passed
	Failed
	// Skipped: a test called t.Skip, typically because it needs a flag
	// (a long campaign) that the table's run does not pass.
	Skipped
)

// results holds what go test -json reported: per package import path, per
// test name (top-level, or with its subtests' names after slashes), the
// final action: "pass", "fail" or "skip".
type results map[string]map[string]string

// testEvent is the part of a go test -json line that is read here (the
// test2json format, cmd/test2json).
type testEvent struct {
	Action  string
	Package string
	Test    string
}

// readResults folds go test -json output into results.
func readResults(r io.Reader) (results, error) {
	res := results{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 16*1024*1024)
	line := 0
	for sc.Scan() {
		line++
		var e testEvent
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			return nil, fmt.Errorf("go test -json output line %d: %v", line, err)
		}
		if e.Test == "" {
			continue
		}
		switch e.Action {
		case "pass", "fail", "skip":
			if res[e.Package] == nil {
				res[e.Package] = map[string]string{}
			}
			res[e.Package][e.Test] = e.Action
		}
	}
	return res, sc.Err()
}

// outcome is the result of a case ported by the given annotations: passed
// when every one of its Go tests passed (benchmarks do not count). Where a
// test has subtests named after the Kafka method (at any depth), those
// subtests decide for that test; otherwise the whole test does. A failure
// outweighs a missing result, which outweighs a skip.
func (res results) outcome(module string, c Case, anns []Annotation) Outcome {
	if res == nil || len(anns) == 0 {
		return NotRun
	}
	worst := Passed
	for _, a := range anns {
		if a.Test.IsBenchmark() {
			continue
		}
		pkg := importPath(module, a.Test.Dir)
		byTest := res[pkg]
		var matched []string
		for name, action := range byTest {
			parts := strings.Split(name, "/")
			if parts[0] != a.Test.Func {
				continue
			}
			for _, p := range parts[1:] {
				if p == c.Method {
					matched = append(matched, action)
					break
				}
			}
		}
		if len(matched) == 0 {
			action, ok := byTest[a.Test.Func]
			if !ok {
				matched = []string{"none"}
			} else {
				matched = []string{action}
			}
		}
		for _, action := range matched {
			switch {
			case action == "fail":
				return Failed
			case action == "none":
				worst = NotRun
			case action == "skip" && worst == Passed:
				worst = Skipped
			}
		}
	}
	return worst
}

// importPath is the import path of the package in dir, relative to the
// module's root.
func importPath(module, dir string) string {
	if dir == "." || dir == "" {
		return module
	}
	return path.Join(module, dir)
}

// moduleLine finds the module path in go.mod.
var moduleLine = regexp.MustCompile(`(?m)^module\s+(\S+)\s*$`)

// modulePath reads the module path from root's go.mod.
func modulePath(root string) (string, error) {
	data, err := os.ReadFile(path.Join(root, "go.mod"))
	if err != nil {
		return "", err
	}
	m := moduleLine.FindSubmatch(data)
	if m == nil {
		return "", fmt.Errorf("%s: no module line", path.Join(root, "go.mod"))
	}
	return strings.Trim(string(m[1]), `"`), nil
}

// testArgs is the go command line that runs every annotated test once:
// one go test invocation over the packages that hold them, with -run
// matching exactly their names (benchmarks are not run). It is empty when
// nothing is annotated.
func testArgs(t Table) []string {
	dirs := map[string]bool{}
	funcs := map[string]bool{}
	for _, ct := range t.Classes {
		for _, anns := range ct.Tests {
			for _, a := range anns {
				if a.Test.IsBenchmark() {
					continue
				}
				dirs[a.Test.Dir] = true
				funcs[a.Test.Func] = true
			}
		}
	}
	if len(funcs) == 0 {
		return nil
	}
	names := sortedKeys(funcs)
	for i, n := range names {
		names[i] = regexp.QuoteMeta(n)
	}
	args := []string{"test", "-json", "-run", "^(" + strings.Join(names, "|") + ")$"}
	for _, d := range sortedKeys(dirs) {
		args = append(args, "./"+d)
	}
	return args
}

// runTests runs the annotated tests (testArgs) from root and returns what
// they reported. A failing test is a result, not an error; an error is go
// test not running or not speaking test2json. What go test wrote to
// stderr (a package that did not build) goes to stderr.
func runTests(root string, t Table, stderr io.Writer) (results, error) {
	args := testArgs(t)
	if args == nil {
		return results{}, nil
	}
	cmd := exec.Command("go", args...)
	cmd.Dir = root
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	runErr := cmd.Run()
	if errOut.Len() > 0 {
		stderr.Write(errOut.Bytes())
	}
	if _, exited := runErr.(*exec.ExitError); runErr != nil && !exited {
		return nil, fmt.Errorf("go %s: %v", strings.Join(args, " "), runErr)
	}
	return readResults(&out)
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// testRunner runs the annotated tests; the command's own tests replace it,
// since a test run by go test must not start go test again.
var testRunner = runTests
