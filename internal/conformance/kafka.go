package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// The -kafka check: every class file must list exactly the test methods
// its Kafka source has. It needs a copy of Apache Kafka's source, a
// checkout or a bare repository, which neither CI nor go test has, so it
// runs only when asked.

// testAnnotation starts a line that marks a JUnit test method: @Test or
// @ParameterizedTest, bare or with arguments. Other annotations (@Timeout,
// @ValueSource) may stand between it and the method.
var testAnnotation = regexp.MustCompile(`^\s*@(Test|ParameterizedTest)(\s*\(.*)?\s*$|^\s*@(Test|ParameterizedTest)\s+(.*)$`)

// methodDecl finds the name a Java ("void name(") or Scala ("def name(")
// method declaration gives.
var methodDecl = regexp.MustCompile(`\b(?:void|def)\s+([A-Za-z_$][A-Za-z0-9_$]*)\s*[(\[]`)

// testMethods lists, sorted and once each, the methods of a Java or Scala
// test source marked @Test or @ParameterizedTest.
func testMethods(src []byte) []string {
	seen := map[string]bool{}
	marked := false
	sc := bufio.NewScanner(bytes.NewReader(src))
	sc.Buffer(make([]byte, 0, 64*1024), 4*1024*1024)
	for sc.Scan() {
		line := sc.Text()
		if m := testAnnotation.FindStringSubmatch(line); m != nil {
			marked = true
			if rest := m[4]; rest != "" {
				line = rest // "@Test def testX(): Unit = {" on one line
			} else {
				continue
			}
		}
		if !marked {
			continue
		}
		if m := methodDecl.FindStringSubmatch(line); m != nil {
			seen[m[1]] = true
			marked = false
		}
	}
	out := make([]string, 0, len(seen))
	for m := range seen {
		out = append(out, m)
	}
	sort.Strings(out)
	return out
}

// readKafkaSource reads path (relative to the Kafka repository's root)
// from dir: a checkout, or else a git repository (bare or not) at its
// HEAD.
func readKafkaSource(dir, path string) ([]byte, error) {
	if data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(path))); err == nil {
		return data, nil
	}
	var out, errOut bytes.Buffer
	cmd := exec.Command("git", "-C", dir, "show", "HEAD:"+path)
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%s is neither a file under %s nor in its git HEAD: %s", path, dir, strings.TrimSpace(errOut.String()))
	}
	return out.Bytes(), nil
}

// checkAgainstKafka compares every class file's methods with its Kafka
// source under dir: a method the source has and the file lacks is reported
// on the header line, a row the source lacks on its own line.
func checkAgainstKafka(t Table, dir string) []InputError {
	var errs []InputError
	for _, ct := range t.Classes {
		f := ct.File
		src, err := readKafkaSource(dir, f.Source)
		if err != nil {
			errs = append(errs, InputError{f.Path, 1, err.Error()})
			continue
		}
		methods := testMethods(src)
		if len(methods) == 0 {
			errs = append(errs, InputError{f.Path, 1, fmt.Sprintf("%s has no @Test or @ParameterizedTest methods", f.Source)})
			continue
		}
		inSource := map[string]bool{}
		for _, m := range methods {
			inSource[m] = true
			if _, ok := findRow(f.Rows, m); !ok {
				errs = append(errs, InputError{f.Path, 1, fmt.Sprintf("%s has test method %s, which the file does not list", f.Source, m)})
			}
		}
		for _, r := range f.Rows {
			if !inSource[r.Method] {
				errs = append(errs, InputError{f.Path, r.Line, fmt.Sprintf("%s is not a test method of %s", r.Method, f.Source)})
			}
		}
	}
	sortErrors(errs)
	return errs
}
