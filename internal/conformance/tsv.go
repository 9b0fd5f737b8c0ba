package main

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
)

// Status is what a class's file says about one Kafka test method.
type Status string

const (
	// Ported: some Go test carries the method's annotation.
	Ported Status = "ported"
	// NotExpressible: kafkasim cannot state the case; the row says why.
	NotExpressible Status = "not-expressible"
)

// Row is one line of a class's file: a Kafka test method and its status.
type Row struct {
	Method string
	Status Status
	Reason string // empty for Ported
	Line   int    // 1-based line in the file
}

// ClassFile is one parsed docs/conformance/<TestClass>.tsv.
type ClassFile struct {
	Path   string // as given to parseClassFile, used in messages
	Class  string // the simple name, the file's base name
	FQN    string // the fully qualified name from the header
	Source string // the test's path in apache/kafka, from the header
	Rows   []Row  // sorted by Method, each once
}

// InputError is a reason tied to a place in an input file. Every problem
// with the inputs is one, so that the command can print them all and exit
// with code 2.
type InputError struct {
	Path   string
	Line   int
	Reason string
}

func (e InputError) Error() string { return fmt.Sprintf("%s:%d: %s", e.Path, e.Line, e.Reason) }

// identifier is what a Java class or method name (and a Scala one without
// backquotes) looks like.
var identifier = regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$]*$`)

// header is the first line: "# class: <fully.qualified.Name> source: <path>".
var header = regexp.MustCompile(`^# class: ([A-Za-z_$][A-Za-z0-9_$.]*) source: (\S+)$`)

// parseClassFile parses one class's file. It returns every problem found,
// not only the first, so that one run shows what to fix.
func parseClassFile(path string, data []byte) (ClassFile, []InputError) {
	cf := ClassFile{Path: path, Class: strings.TrimSuffix(filepath.Base(path), ".tsv")}
	var errs []InputError
	bad := func(line int, format string, args ...any) {
		errs = append(errs, InputError{path, line, fmt.Sprintf(format, args...)})
	}
	text := string(data)
	if !strings.HasSuffix(text, "\n") {
		bad(strings.Count(text, "\n")+1, "the file must end with a newline")
		text += "\n"
	}
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	if !identifier.MatchString(cf.Class) {
		bad(1, "the file name %q is not <TestClass>.tsv", filepath.Base(path))
	}
	m := header.FindStringSubmatch(lines[0])
	switch {
	case m == nil:
		bad(1, "want the header \"# class: <fully.qualified.Name> source: <path in apache/kafka>\", got %q", lines[0])
	case !strings.HasSuffix(m[1], "."+cf.Class):
		bad(1, "the header names class %s, but the file %s.tsv wants the fully qualified name of %s", m[1], cf.Class, cf.Class)
	default:
		cf.FQN, cf.Source = m[1], m[2]
	}
	for i, line := range lines[1:] {
		n := i + 2
		row, reason := parseRow(line)
		if reason != "" {
			bad(n, "%s", reason)
			continue
		}
		row.Line = n
		if k := len(cf.Rows); k > 0 && cf.Rows[k-1].Method >= row.Method {
			if cf.Rows[k-1].Method == row.Method {
				bad(n, "method %s is listed twice (also on line %d)", row.Method, cf.Rows[k-1].Line)
			} else {
				bad(n, "method %s is out of order: rows are sorted by method name (byte order), and it sorts before %s on line %d",
					row.Method, cf.Rows[k-1].Method, cf.Rows[k-1].Line)
			}
			continue
		}
		cf.Rows = append(cf.Rows, row)
	}
	if len(lines) == 1 && m != nil {
		bad(1, "no methods listed: a class's file lists every test method of the class")
	}
	return cf, errs
}

// parseRow parses "<method>\t<status>\t<reason>", returning a reason when
// the line is malformed. A ported row may leave out its empty reason field.
func parseRow(line string) (Row, string) {
	if strings.ContainsRune(line, '\r') {
		return Row{}, "carriage return in the line: use Unix line ends"
	}
	if line == "" {
		return Row{}, "empty line"
	}
	f := strings.Split(line, "\t")
	if len(f) < 2 || len(f) > 3 {
		return Row{}, fmt.Sprintf("want <method>\\t<status>\\t<reason> (tab-separated), got %d field(s): %q", len(f), line)
	}
	r := Row{Method: f[0], Status: Status(f[1])}
	if len(f) == 3 {
		r.Reason = f[2]
	}
	if !identifier.MatchString(r.Method) {
		return Row{}, fmt.Sprintf("%q is not a method name", r.Method)
	}
	switch r.Status {
	case Ported:
		if r.Reason != "" {
			return Row{}, fmt.Sprintf("method %s is ported, so its reason must be empty (got %q)", r.Method, r.Reason)
		}
	case NotExpressible:
		if strings.TrimSpace(r.Reason) == "" {
			return Row{}, fmt.Sprintf("method %s is not-expressible without a reason: name the feature kafkasim does not model, or \"API-only: ...\"", r.Method)
		}
		if strings.TrimSpace(r.Reason) != r.Reason {
			return Row{}, fmt.Sprintf("method %s: the reason has leading or trailing spaces", r.Method)
		}
	default:
		return Row{}, fmt.Sprintf("method %s: status %q is neither %q nor %q", r.Method, f[1], Ported, NotExpressible)
	}
	return r, ""
}
