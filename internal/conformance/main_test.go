package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fakeRepo writes a tiny module with one class file and one annotated
// test, and makes the command's test runner report the given action for
// that test without running go.
func fakeRepo(t *testing.T, action string) string {
	t.Helper()
	root := t.TempDir()
	write := func(rel, data string) {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("go.mod", "module example.com/sim\n\ngo 1.26\n")
	write("docs/conformance/ATest.tsv", "# class: org.example.ATest source: x/ATest.java\ntestA\tported\ntestB\tnot-expressible\tracks (not modelled)\n")
	write("pkg/a_test.go", "package pkg\n\nimport \"testing\"\n\n// Kafka: ATest.testA\nfunc TestA(t *testing.T) {}\n")
	old := testRunner
	t.Cleanup(func() { testRunner = old })
	testRunner = func(string, Table, io.Writer) (results, error) {
		return results{"example.com/sim/pkg": {"TestA": action}}, nil
	}
	return root
}

func runCmd(args ...string) (int, string, string) {
	var out, errOut bytes.Buffer
	code := run(args, &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestRunWritesTheDocument(t *testing.T) {
	root := fakeRepo(t, "pass")
	code, _, stderr := runCmd("-root", root)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	doc, err := os.ReadFile(filepath.Join(root, "docs/conformance.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(doc), "| [ATest](conformance/ATest.tsv) | 2 | 1 | 1 | 1 |") {
		t.Fatalf("document:\n%s", doc)
	}
	entries, _ := os.ReadDir(filepath.Join(root, "docs"))
	if len(entries) != 2 {
		t.Fatalf("docs holds %d entries, want conformance/ and conformance.md (a temporary file left behind?)", len(entries))
	}
	if code, _, _ := runCmd("-root", root, "-check"); code != 0 {
		t.Fatalf("-check right after writing: exit %d", code)
	}
	// The same inputs with the test now failing: the document is stale.
	testRunner = func(string, Table, io.Writer) (results, error) {
		return results{"example.com/sim/pkg": {"TestA": "fail"}}, nil
	}
	if code, _, stderr := runCmd("-root", root, "-check"); code != 1 || !strings.Contains(stderr, "out of date") {
		t.Fatalf("-check with a failing test: exit %d, %s", code, stderr)
	}
}

func TestRunRefusesBadInputAndWritesNothing(t *testing.T) {
	root := fakeRepo(t, "pass")
	target := filepath.Join(root, "docs/conformance.md")
	if err := os.WriteFile(target, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "docs/conformance/ATest.tsv"),
		[]byte("# class: org.example.ATest source: x/ATest.java\ntestA\tported\ntestB\tnot-expressible\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCmd("-root", root)
	if code != 2 || !strings.Contains(stderr, "docs/conformance/ATest.tsv:3: method testB is not-expressible without a reason") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	if doc, _ := os.ReadFile(target); string(doc) != "old\n" {
		t.Fatalf("document changed to %q", doc)
	}
	if code, _, _ := runCmd("-root", root, "-bogus"); code != 2 {
		t.Fatalf("unknown flag: exit %d, want 2", code)
	}
	if code, _, _ := runCmd("-root", root, "extra"); code != 2 {
		t.Fatalf("stray argument: exit %d, want 2", code)
	}
}

func TestRunRefusesASymlinkOrDirectoryTarget(t *testing.T) {
	root := fakeRepo(t, "pass")
	elsewhere := filepath.Join(t.TempDir(), "elsewhere.md")
	if err := os.WriteFile(elsewhere, []byte("keep\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(root, "docs/conformance.md")
	if err := os.Symlink(elsewhere, target); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runCmd("-root", root); code != 2 || !strings.Contains(stderr, "symlink") {
		t.Fatalf("symlink: exit %d, %s", code, stderr)
	}
	if data, _ := os.ReadFile(elsewhere); string(data) != "keep\n" {
		t.Fatalf("the link's target changed to %q", data)
	}
	os.Remove(target)
	if err := os.Mkdir(target, 0o755); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runCmd("-root", root); code != 2 || !strings.Contains(stderr, "not a regular file") {
		t.Fatalf("directory: exit %d, %s", code, stderr)
	}
}
