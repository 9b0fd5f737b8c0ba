package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// withStore points the run store at a new temporary folder for one test.
func withStore(t *testing.T) string {
	t.Helper()
	old := storeRoot
	storeRoot = t.TempDir()
	t.Cleanup(func() { storeRoot = old })
	return storeRoot
}

// TestRunAndSweepWithoutOutFillTheStore: without -out each run and sweep
// gets a new folder store/SCENARIO/TIME/, never an old one, and
// store/latest and store/SCENARIO/latest name the newest.
func TestRunAndSweepWithoutOutFillTheStore(t *testing.T) {
	root := withStore(t)
	var out, errb bytes.Buffer
	for i := 0; i < 2; i++ {
		if code := dispatch([]string{"run", "-scenario", "baseline", "-seed", "3"}, &out, &errb); code != 0 {
			t.Fatalf("run %d: exit %d: %s", i, code, errb.String())
		}
	}
	runs, _ := filepath.Glob(filepath.Join(root, "baseline", "2*"))
	if len(runs) != 2 || runs[0] == runs[1] {
		t.Fatalf("two runs made folders %v", runs)
	}
	slices.Sort(runs)
	for _, r := range runs {
		if _, err := os.Stat(filepath.Join(r, "result.json")); err != nil {
			t.Fatalf("%s: %v", r, err)
		}
	}
	for _, link := range []string{filepath.Join(root, "latest"), filepath.Join(root, "baseline", "latest")} {
		got, err := filepath.EvalSymlinks(link)
		want, _ := filepath.EvalSymlinks(runs[1])
		if err != nil || got != want {
			t.Fatalf("%s names %s (%v), want the newest run %s", link, got, err, want)
		}
	}
	if code := dispatch([]string{"sweep", "-scenario", "baseline", "-seeds", "2", "-recheck", "0"}, &out, &errb); code != 0 {
		t.Fatalf("sweep: exit %d: %s", code, errb.String())
	}
	sweeps, _ := filepath.Glob(filepath.Join(root, "baseline", "2*", "results.jsonl"))
	if len(sweeps) != 1 {
		t.Fatalf("sweep results in the store: %v", sweeps)
	}
	if got, _ := filepath.EvalSymlinks(filepath.Join(root, "latest")); got != mustEval(t, filepath.Dir(sweeps[0])) {
		t.Fatalf("store/latest names %s after the sweep", got)
	}
	// A real folder at store/latest is not a link kafkasim made: it is
	// left alone, and the run still succeeds.
	os.Remove(filepath.Join(root, "latest"))
	os.Mkdir(filepath.Join(root, "latest"), 0o755)
	errb.Reset()
	if code := dispatch([]string{"run", "-scenario", "baseline", "-seed", "4"}, &out, &errb); code != 0 || !strings.Contains(errb.String(), "not a symbolic link") {
		t.Fatalf("run with a folder at store/latest: exit %d: %s", code, errb.String())
	}
	if fi, err := os.Lstat(filepath.Join(root, "latest")); err != nil || !fi.IsDir() {
		t.Fatal("store/latest, a folder, was replaced")
	}
}

func mustEval(t *testing.T, p string) string {
	t.Helper()
	got, err := filepath.EvalSymlinks(p)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// TestOutNeverReplacesWhatItNames: -out naming a symbolic link (to a
// folder or a file), a FIFO, a device or a folder with files in it is
// refused with exit 2 before any work, for run, sweep, merge and shrink
// (a regular file too, for the folder outputs), and the thing named is
// untouched, with no temporary file left beside it.
func TestOutNeverReplacesWhatItNames(t *testing.T) {
	withStore(t)
	shard := t.TempDir()
	os.WriteFile(filepath.Join(shard, "results.jsonl"), []byte(`{"scenario":"baseline","seed":1,"ok":true,"as_expected":true}`+"\n"), 0o644)
	commands := map[string][]string{
		"run":    {"run", "-scenario", "baseline", "-seed", "3", "-out"},
		"sweep":  {"sweep", "-scenario", "baseline", "-seeds", "2", "-recheck", "0", "-out"},
		"merge":  {"merge", shard, "-out"},
		"shrink": {"shrink", "-scenario", "kip101-hw-truncation", "-seed", "7", "-out"},
	}
	kinds := []string{"symlink-to-dir", "symlink-to-file", "fifo", "device", "non-empty-dir", "file"}
	for _, name := range []string{"merge", "run", "shrink", "sweep"} {
		for _, kind := range kinds {
			if name == "shrink" && kind == "file" {
				continue // a regular file is what shrink -out replaces
			}
			parent := t.TempDir()
			target := filepath.Join(parent, "out")
			switch kind {
			case "symlink-to-dir":
				os.Mkdir(filepath.Join(parent, "real"), 0o755)
				os.Symlink("real", target)
			case "symlink-to-file":
				os.WriteFile(filepath.Join(parent, "real"), []byte("keep"), 0o644)
				os.Symlink("real", target)
			case "fifo":
				if err := syscall.Mkfifo(target, 0o644); err != nil {
					t.Skip("no FIFOs here:", err)
				}
			case "device":
				target = os.DevNull
			case "non-empty-dir":
				os.Mkdir(target, 0o755)
				os.WriteFile(filepath.Join(target, "notes.txt"), []byte("keep"), 0o644)
			case "file":
				os.WriteFile(target, []byte("keep"), 0o644)
			}
			before := listTree(t, parent)
			fi0, _ := os.Lstat(target)
			args := append(slices.Clone(commands[name]), target)
			if name == "merge" {
				// merge takes the flags first.
				args = []string{"merge", "-out", target, shard}
			}
			var out, errb bytes.Buffer
			code := dispatch(args, &out, &errb)
			if code != 2 || !strings.Contains(errb.String(), "-out") {
				t.Errorf("%s -out %s: exit %d, stderr %q", name, kind, code, errb.String())
				continue
			}
			fi1, err := os.Lstat(target)
			if err != nil || fi1.Mode() != fi0.Mode() {
				t.Errorf("%s -out %s: it changed: %v %v", name, kind, fi1, err)
			}
			if after := listTree(t, parent); !slices.Equal(before, after) {
				t.Errorf("%s -out %s: the folder held %v, now %v", name, kind, before, after)
			}
		}
	}
}

// listTree lists a folder and its subfolders, names only, sorted.
func listTree(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, rel)
		}
		return nil
	})
	return out
}

// TestForceReusesAFolderAndReplacesOnlyRegularFiles: with -force a run is
// written into a folder that holds files (a person's notes stay; a file
// of the same name is replaced), and a sweep into an old sweep's folder
// removes that sweep's outputs, runs/ included, and nothing else; a
// symbolic link standing where a sweep output goes stops it, with
// nothing removed.
func TestForceReusesAFolderAndReplacesOnlyRegularFiles(t *testing.T) {
	withStore(t)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("keep"), 0o644)
	os.WriteFile(filepath.Join(dir, "result.json"), []byte("old"), 0o644)
	var out, errb bytes.Buffer
	if code := dispatch([]string{"run", "-scenario", "baseline", "-seed", "3", "-out", dir, "-force"}, &out, &errb); code != 0 {
		t.Fatalf("run -force: exit %d: %s", code, errb.String())
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "notes.txt")); string(b) != "keep" {
		t.Fatal("run -force lost notes.txt")
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "result.json")); string(b) == "old" {
		t.Fatal("run -force kept the old result.json")
	}

	sw := t.TempDir()
	os.WriteFile(filepath.Join(sw, "notes.txt"), []byte("keep"), 0o644)
	os.MkdirAll(filepath.Join(sw, "runs", "old-seed99"), 0o755)
	os.WriteFile(filepath.Join(sw, "results.jsonl"), []byte("old\n"), 0o644)
	os.Symlink("notes.txt", filepath.Join(sw, "summary.md"))
	if code := dispatch([]string{"sweep", "-scenario", "baseline", "-seeds", "2", "-recheck", "0", "-out", sw, "-force"}, &out, &errb); code != 2 {
		t.Fatalf("sweep -force over a symbolic link: exit %d", code)
	}
	if _, err := os.Stat(filepath.Join(sw, "runs", "old-seed99")); err != nil {
		t.Fatal("a refused sweep -force removed runs/")
	}
	os.Remove(filepath.Join(sw, "summary.md"))
	errb.Reset()
	if code := dispatch([]string{"sweep", "-scenario", "baseline", "-seeds", "2", "-recheck", "0", "-out", sw, "-force"}, &out, &errb); code != 0 {
		t.Fatalf("sweep -force: exit %d: %s", code, errb.String())
	}
	if _, err := os.Stat(filepath.Join(sw, "runs", "old-seed99")); err == nil {
		t.Fatal("sweep -force kept the old sweep's runs/")
	}
	md, _ := os.ReadFile(filepath.Join(sw, "summary.md"))
	if b, _ := os.ReadFile(filepath.Join(sw, "notes.txt")); string(b) != "keep" || strings.Contains(string(md), "old-seed99") {
		t.Fatalf("sweep -force: notes %q, summary lists the old run: %v", b, strings.Contains(string(md), "old-seed99"))
	}
	if rs, err := readResults(filepath.Join(sw, "results.jsonl")); err != nil || len(rs) != 2 {
		t.Fatalf("results after -force: %d, %v", len(rs), err)
	}
}
