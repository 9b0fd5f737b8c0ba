package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
)

// Table is what the document shows: every class's file, joined with the
// Go tests that port its methods.
type Table struct {
	Classes []ClassTable // sorted by class name
}

// ClassTable is one class: its file's rows and, for each ported row, the
// annotations that name it.
type ClassTable struct {
	File  ClassFile
	Tests map[string][]Annotation // method -> annotations, in file and line order
}

// counts returns a class's cases, ported and not-expressible rows.
func (c ClassTable) counts() (cases, ported, notExpressible int) {
	for _, r := range c.File.Rows {
		if r.Status == Ported {
			ported++
		} else {
			notExpressible++
		}
	}
	return len(c.File.Rows), ported, notExpressible
}

// classDir is where the class files live, relative to the repository root.
const classDir = "docs/conformance"

// loadTable reads every class file under root's docs/conformance and every
// annotation in root's test files, and joins them. Problems with either
// come back as InputErrors (sorted by file and line); other errors (a file
// that cannot be read) as err.
func loadTable(root string) (Table, []InputError, error) {
	paths, err := filepath.Glob(filepath.Join(root, classDir, "*.tsv"))
	if err != nil {
		return Table{}, nil, err
	}
	sort.Strings(paths)
	var files []ClassFile
	var errs []InputError
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			return Table{}, nil, err
		}
		rel := filepath.ToSlash(filepath.Join(classDir, filepath.Base(p)))
		cf, e := parseClassFile(rel, data)
		files = append(files, cf)
		errs = append(errs, e...)
	}
	anns, e, err := scanAnnotations(root)
	if err != nil {
		return Table{}, nil, err
	}
	errs = append(errs, e...)
	t, e := join(files, anns)
	errs = append(errs, e...)
	sortErrors(errs)
	return t, errs, nil
}

// join pairs annotations with class rows: every annotation must name a
// method that its class's file lists as ported, once per Go test, and
// every ported row must be named by some annotation.
func join(files []ClassFile, anns []Annotation) (Table, []InputError) {
	var errs []InputError
	byClass := map[string]int{}
	t := Table{}
	for _, f := range files {
		byClass[f.Class] = len(t.Classes)
		t.Classes = append(t.Classes, ClassTable{File: f, Tests: map[string][]Annotation{}})
	}
	for _, a := range anns {
		i, ok := byClass[a.Case.Class]
		if !ok {
			errs = append(errs, InputError{a.Path, a.Line,
				fmt.Sprintf("%s names class %s, which has no %s/%s.tsv", a.Case, a.Case.Class, classDir, a.Case.Class)})
			continue
		}
		ct := t.Classes[i]
		row, found := findRow(ct.File.Rows, a.Case.Method)
		switch {
		case !found:
			errs = append(errs, InputError{a.Path, a.Line,
				fmt.Sprintf("%s: %s lists no method %s", a.Case, ct.File.Path, a.Case.Method)})
			continue
		case row.Status != Ported:
			errs = append(errs, InputError{a.Path, a.Line,
				fmt.Sprintf("%s is ported by %s, but %s:%d says %s", a.Case, a.Test.Func, ct.File.Path, row.Line, row.Status)})
			continue
		}
		dup := false
		for _, b := range ct.Tests[a.Case.Method] {
			dup = dup || b.Test == a.Test
		}
		if dup {
			errs = append(errs, InputError{a.Path, a.Line, fmt.Sprintf("%s is annotated twice on %s", a.Case, a.Test.Func)})
			continue
		}
		ct.Tests[a.Case.Method] = append(ct.Tests[a.Case.Method], a)
	}
	for _, ct := range t.Classes {
		for _, r := range ct.File.Rows {
			if r.Status != Ported {
				continue
			}
			anns := ct.Tests[r.Method]
			switch {
			case len(anns) == 0:
				errs = append(errs, InputError{ct.File.Path, r.Line,
					fmt.Sprintf("%s.%s is ported, but no Go test's doc comment says \"// Kafka: %s.%s\"", ct.File.Class, r.Method, ct.File.Class, r.Method)})
			case !slices.ContainsFunc(anns, func(a Annotation) bool { return !a.Test.IsBenchmark() }):
				errs = append(errs, InputError{ct.File.Path, r.Line,
					fmt.Sprintf("%s.%s is carried only by benchmarks; a ported case needs a Go test that checks it", ct.File.Class, r.Method)})
			}
		}
	}
	sort.Slice(t.Classes, func(i, j int) bool { return t.Classes[i].File.Class < t.Classes[j].File.Class })
	return t, errs
}

// findRow finds a method among sorted rows.
func findRow(rows []Row, method string) (Row, bool) {
	i := sort.Search(len(rows), func(i int) bool { return rows[i].Method >= method })
	if i < len(rows) && rows[i].Method == method {
		return rows[i], true
	}
	return Row{}, false
}

// sortErrors orders errors by file, then line, then reason.
func sortErrors(errs []InputError) {
	sort.SliceStable(errs, func(i, j int) bool {
		a, b := errs[i], errs[j]
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Reason < b.Reason
	})
}
