package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
)

// TestRepositoryConformanceTable checks the repository's own inputs: every
// class file is well formed, every annotation names a method listed as
// ported and every ported method has one, and docs/conformance.md is what
// the generator writes from them. The passing column and the failing list
// are left out of the comparison: they need the annotated tests run, and a
// test run by go test must not start go test itself. Run
// "go run ./internal/conformance -check" for those.
func TestRepositoryConformanceTable(t *testing.T) {
	root, err := findRoot()
	if err != nil {
		t.Fatal(err)
	}
	tab, errs, err := loadTable(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range errs {
		t.Error(e)
	}
	if len(errs) > 0 {
		t.FailNow()
	}
	path := filepath.Join(root, "docs/conformance.md")
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v: run %s", err, command)
	}
	if want := maskRun(render(tab, nil)); !bytes.Equal(maskRun(doc), want) {
		t.Fatalf("docs/conformance.md is out of date: run %s", command)
	}
	// What the mask hid must at least be possible: no class passes more
	// cases than it ports.
	for _, m := range passingCells.FindAllSubmatch(doc, -1) {
		ported, _ := strconv.Atoi(string(m[2]))
		if passing, err := strconv.Atoi(string(m[3])); err != nil || passing > ported {
			t.Errorf("docs/conformance.md: %s: passing %q is not a count of at most %d ported cases", m[1], m[3], ported)
		}
	}
}

// passingCells captures a summary row's class, ported and passing cells.
var passingCells = regexp.MustCompile(`(?m)^\| ([^|\n]+) \| \d+ \| (\d+) \| ([^|\n]+) \| \d+ \|$`)
