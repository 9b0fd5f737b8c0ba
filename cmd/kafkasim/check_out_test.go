package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// nonlinearJSONL: the poll returns a before its send is invoked, which
// only porcupine sees, so it writes a visualization.
const nonlinearJSONL = `{"process":1,"type":"ok","f":"poll","time":1,"end":2,"records":{"t/0":[[0,"a"]]}}
{"process":0,"type":"ok","f":"send","time":5,"end":6,"tp":"t/0","value":"a","offset":0}
`

// check -out follows run -out's rule: what the path names (a non-empty
// directory, a file, a symbolic link, a FIFO) is refused with exit 2 and
// left as it was, nothing temporary is left beside it; a new path or an
// empty directory gets the visualization, and the report names where it is.
func TestCheckOutNeverDestroysWhatItNames(t *testing.T) {
	history := writeFile(t, "h.jsonl", nonlinearJSONL)
	parent := t.TempDir()
	full := filepath.Join(parent, "full")
	if err := os.MkdirAll(full, 0o755); err != nil {
		t.Fatal(err)
	}
	keep := filepath.Join(full, "linearizability-t-0.html")
	if err := os.WriteFile(keep, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(parent, "file")
	if err := os.WriteFile(file, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(parent, "link")
	target := t.TempDir()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(parent, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ path, want string }{
		{full, "is not empty"},
		{file, "not a directory"},
		{link, "is a symbolic link"},
		{fifo, "not a directory"},
	} {
		code, out, errs := runCmd("check", "-history", history, "-out", c.path)
		if code != 2 || out != "" || !strings.Contains(errs, c.want) {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want 2, nothing, %q", c.path, code, out, errs, c.want)
		}
	}
	if b, err := os.ReadFile(keep); err != nil || string(b) != "mine" {
		t.Errorf("the directory's file became %q (%v)", b, err)
	}
	if b, err := os.ReadFile(file); err != nil || string(b) != "mine" {
		t.Errorf("the file became %q (%v)", b, err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced (%v)", err)
	}
	if names, _ := os.ReadDir(target); len(names) != 0 {
		t.Errorf("written through the link: %v", names)
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO was replaced (%v)", err)
	}
	empty := filepath.Join(parent, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{filepath.Join(parent, "new"), empty} {
		code, out, errs := runCmd("check", "-history", history, "-out", dir)
		vis := filepath.Join(dir, "linearizability-t-0.html")
		if code != 1 || !strings.Contains(out, vis) {
			t.Fatalf("%s: exit %d\n%s\n%s", dir, code, out, errs)
		}
		if _, err := os.Stat(vis); err != nil {
			t.Fatal(err)
		}
	}
	entries, _ := os.ReadDir(parent)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp") {
			t.Errorf("left %s behind", e.Name())
		}
	}
}

// A bad history given with -out leaves no directory behind.
func TestCheckOutBadHistoryLeavesNothing(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "vis")
	bad := writeFile(t, "bad.jsonl", "{\"process\":\n")
	if code, _, _ := runCmd("check", "-history", bad, "-out", dir); code != 2 {
		t.Fatalf("exit %d", code)
	}
	if _, err := os.Lstat(dir); err == nil {
		t.Fatalf("bad input left %s", dir)
	}
	if entries, _ := os.ReadDir(filepath.Dir(dir)); len(entries) != 0 {
		t.Fatalf("bad input left %v", entries)
	}
}

// check -history - judges standard input, and names it in errors.
func TestCheckHistoryFromStdin(t *testing.T) {
	old := stdin
	defer func() { stdin = old }()
	stdin = strings.NewReader(lostJSONL)
	code, out, errs := runCmd("check", "-history", "-")
	if code != 1 || !strings.Contains(out, "lost-write") {
		t.Fatalf("lost write on stdin: exit %d\n%s\n%s", code, out, errs)
	}
	stdin = strings.NewReader(cleanJSONL)
	if code, out, errs := runCmd("check", "-history", "-"); code != 0 {
		t.Fatalf("clean history on stdin: exit %d\n%s\n%s", code, out, errs)
	}
	stdin = strings.NewReader(cleanJSONL + `{"process":0,"type":"okk","f":"send","time":0,"end":1}` + "\n")
	code, out, errs = runCmd("check", "-history", "-")
	if code != 2 || out != "" || !strings.Contains(errs, `<stdin>:4: unknown op type "okk"`) {
		t.Fatalf("bad stdin: exit %d, stdout %q, stderr %q", code, out, errs)
	}
}
