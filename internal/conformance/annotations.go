package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/scanner"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// Case names one Kafka test method: class and method.
type Case struct{ Class, Method string }

func (c Case) String() string { return c.Class + "." + c.Method }

// Annotation is one "// Kafka: Class.method" line in a Go test's doc
// comment.
type Annotation struct {
	Case Case
	Test GoTest
	Path string // the test file, relative to the repository root
	Line int
}

// GoTest is a top-level Go test or benchmark function: the package
// directory (relative to the repository root, slash-separated, "." for the
// root) and its name.
type GoTest struct{ Dir, Func string }

// IsBenchmark tells a benchmark from a test. A benchmark may carry the
// annotation of a Kafka case it measures (a large assignment, say), but
// only tests say whether a case passes.
func (g GoTest) IsBenchmark() bool { return benchFunc.MatchString(g.Func) }

// annotationPrefix starts an annotation line, after "//" and one space.
const annotationPrefix = "Kafka:"

// annotationLine is the whole form of one.
var annotationLine = regexp.MustCompile(`^Kafka: ([A-Za-z_$][A-Za-z0-9_$]*)\.([A-Za-z_$][A-Za-z0-9_$]*)$`)

// testFunc and benchFunc are the names of the functions go test runs as
// tests and benchmarks.
var (
	testFunc  = regexp.MustCompile(`^Test([^a-z].*)?$`)
	benchFunc = regexp.MustCompile(`^Benchmark([^a-z].*)?$`)
)

// scanAnnotations parses every *_test.go file under root (skipping
// directories go ignores: testdata, and names starting with "." or "_")
// and returns the annotations, in file and line order. A "Kafka:" line in
// a Test or Benchmark function's doc comment that is not exactly an annotation, and an
// exact annotation anywhere else, are errors: either would otherwise be
// silently left out of the table. Other comments may talk about Kafka
// freely ("// Kafka: the leader epoch stays").
func scanAnnotations(root string) ([]Annotation, []InputError, error) {
	var files []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(name, "_test.go") && d.Type().IsRegular() {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	sort.Strings(files)
	var anns []Annotation
	var errs []InputError
	for _, path := range files {
		src, err := os.ReadFile(path)
		if err != nil {
			return nil, nil, err
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return nil, nil, err
		}
		rel = filepath.ToSlash(rel)
		a, e := fileAnnotations(rel, src)
		anns = append(anns, a...)
		errs = append(errs, e...)
	}
	return anns, errs, nil
}

// fileAnnotations finds the annotations in one test file's source; rel is
// its path relative to the repository root.
func fileAnnotations(rel string, src []byte) ([]Annotation, []InputError) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, rel, src, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		// A file that does not parse fails go vet and go test already;
		// here it only means its annotations cannot be read.
		line, reason := 1, err.Error()
		if list, ok := err.(scanner.ErrorList); ok && len(list) > 0 {
			line, reason = list[0].Pos.Line, list[0].Msg
		}
		return nil, []InputError{{rel, line, "does not parse: " + reason}}
	}
	dir := filepath.ToSlash(filepath.Dir(rel))
	// The doc comments of top-level test functions are where annotations
	// belong.
	owner := map[*ast.CommentGroup]string{}
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if ok && fd.Recv == nil && fd.Doc != nil && (testFunc.MatchString(fd.Name.Name) || benchFunc.MatchString(fd.Name.Name)) {
			owner[fd.Doc] = fd.Name.Name
		}
	}
	var anns []Annotation
	var errs []InputError
	for _, g := range f.Comments {
		for _, c := range g.List {
			text, ok := strings.CutPrefix(c.Text, "//")
			if !ok {
				continue // a /* */ comment holds no annotations
			}
			text = strings.TrimPrefix(text, " ")
			if !strings.HasPrefix(strings.TrimSpace(text), annotationPrefix) {
				continue
			}
			line := fset.Position(c.Slash).Line
			m := annotationLine.FindStringSubmatch(text)
			fn, inDoc := owner[g]
			switch {
			case m == nil && inDoc:
				errs = append(errs, InputError{rel, line,
					fmt.Sprintf("malformed annotation %q: want exactly \"// Kafka: <TestClass>.<testMethod>\"", c.Text)})
				continue
			case m == nil:
				continue // prose about Kafka in some other comment
			case !inDoc:
				errs = append(errs, InputError{rel, line,
					fmt.Sprintf("annotation %q is not in the doc comment of a top-level Test or Benchmark function", c.Text)})
				continue
			}
			anns = append(anns, Annotation{Case{m[1], m[2]}, GoTest{dir, fn}, rel, line})
		}
	}
	return anns, errs
}
