package lint

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// repoRoot finds the repository root from the test's working directory,
// which go test sets to this package's folder.
func repoRoot(t *testing.T) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	root, err := ModuleRoot(wd)
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// TestDeterminismLint is the lint itself: the simulated world (sim, model,
// nodes, faults) must contain none of the constructs the README's
// kernel section lists under determinism. Every finding is listed, one per line, so a failure
// says exactly what to fix.
func TestDeterminismLint(t *testing.T) {
	root := repoRoot(t)
	found, err := CheckTree(root, SimDirs...)
	if err != nil {
		t.Fatal(err)
	}
	if len(found) == 0 {
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d determinism violation(s) in %s (see README.md, \"The kernel\"):", len(found), root)
	for _, f := range found {
		b.WriteString("\n" + f.String())
	}
	t.Fatal(b.String())
}

// summary reduces findings to "line:col rule" so tables can state them exactly.
func summary(fs []Finding) []string {
	out := make([]string, len(fs))
	for i, f := range fs {
		out[i] = fmt.Sprintf("%d:%d %s", f.Pos.Line, f.Pos.Column, f.Rule)
	}
	return out
}

type ruleCase struct {
	name  string
	bad   string   // a file holding the construct
	want  []string // exactly the findings of bad, as "line:col rule"
	clean string   // a near-identical file without it, which must pass
}

// ruleCases holds, for every forbidden construct, a file that contains it and
// a near-identical one that does not: the first shows the lint catches the
// construct at the right place, the second that it does not cry wolf on the
// allowed thing next to it.
func ruleCases() []ruleCase {
	cases := []ruleCase{
		{
			name:  "go statement",
			bad:   "package p\n\nfunc f() { go g() }\n",
			want:  []string{"3:12 go-statement"},
			clean: "package p\n\nfunc f() { g() }\n",
		},
		{
			name:  "go statement with a function literal",
			bad:   "package p\n\nfunc f() {\n\tgo func() {}()\n}\n",
			want:  []string{"4:2 go-statement"},
			clean: "package p\n\nfunc f() {\n\tfunc() {}()\n}\n",
		},
		{
			name:  "bidirectional channel type",
			bad:   "package p\n\nvar c chan int\n",
			want:  []string{"3:7 channel"},
			clean: "package p\n\nvar c []int\n",
		},
		{
			name:  "receive-only channel type",
			bad:   "package p\n\nfunc f(c <-chan int) {}\n",
			want:  []string{"3:10 channel"},
			clean: "package p\n\nfunc f(c []int) {}\n",
		},
		{
			name:  "send-only channel type",
			bad:   "package p\n\ntype T struct{ out chan<- int }\n",
			want:  []string{"3:20 channel"},
			clean: "package p\n\ntype T struct{ out []int }\n",
		},
		{
			name:  "channel made with make",
			bad:   "package p\n\nfunc f() { _ = make(chan int, 1) }\n",
			want:  []string{"3:21 channel"},
			clean: "package p\n\nfunc f() { _ = make([]int, 1) }\n",
		},
		{
			name:  "send statement",
			bad:   "package p\n\nfunc f(c T) { c <- 1 }\n",
			want:  []string{"3:17 channel"},
			clean: "package p\n\nfunc f(c T) { c.Put(1) }\n",
		},
		{
			name:  "receive expression",
			bad:   "package p\n\nfunc f(c T) int { return <-c }\n",
			want:  []string{"3:26 channel"},
			clean: "package p\n\nfunc f(c T) int { return c.Get() }\n",
		},
		{
			// `x < -c` is a comparison with a negation, not a receive,
			// though it differs from one by a space.
			name:  "receive expression against less-than-minus",
			bad:   "package p\n\nfunc f(x int, c T) bool { return x == <-c }\n",
			want:  []string{"3:39 channel"},
			clean: "package p\n\nfunc f(x, c int) bool { return x < -c }\n",
		},
		{
			name:  "empty select",
			bad:   "package p\n\nfunc f() { select {} }\n",
			want:  []string{"3:12 select"},
			clean: "package p\n\nfunc f() { switch {} }\n",
		},
		{
			name: "select with cases",
			bad: "package p\n\nfunc f(a, b T) {\n" +
				"\tselect {\n" +
				"\tcase v := <-a:\n" +
				"\t\t_ = v\n" +
				"\tcase b <- 1:\n" +
				"\tdefault:\n" +
				"\t}\n}\n",
			want: []string{"4:2 select", "5:12 channel", "7:9 channel"},
			clean: "package p\n\nfunc f(a, b T) {\n" +
				"\tswitch {\n" +
				"\tcase a.Ready():\n" +
				"\t\t_ = a\n" +
				"\tcase b.Put(1):\n" +
				"\tdefault:\n" +
				"\t}\n}\n",
		},

		// Import forms of a forbidden package: named, dot, blank, grouped.
		{
			name:  "renamed import of sync",
			bad:   "package p\n\nimport s \"sync\"\n",
			want:  []string{"3:8 import"},
			clean: "package p\n\nimport s \"sort\"\n",
		},
		{
			name:  "dot-import of os",
			bad:   "package p\n\nimport . \"os\"\n",
			want:  []string{"3:8 import"},
			clean: "package p\n\nimport . \"io\"\n",
		},
		{
			name:  "blank import in a group",
			bad:   "package p\n\nimport (\n\t\"fmt\"\n\t_ \"crypto/rand\"\n)\n",
			want:  []string{"5:2 import"},
			clean: "package p\n\nimport (\n\t\"fmt\"\n\t_ \"crypto/sha256\"\n)\n",
		},
		{
			// Uses of math/rand v1 are not reported one by one: the
			// import already is.
			name:  "math/rand v1 with a use",
			bad:   "package p\n\nimport \"math/rand\"\n\nvar _ = rand.Intn(3)\n",
			want:  []string{"3:8 import"},
			clean: "package p\n\nimport \"math/rand/v2\"\n\nvar _ = rand.New(rand.NewPCG(1, 2)).IntN(3)\n",
		},

		// time: wall-clock functions, by name and by alias, against the
		// pure parts of the package and against local names that only
		// look like it.
		{
			name:  "time.Now called",
			bad:   "package p\n\nimport \"time\"\n\nfunc f() { _ = time.Now() }\n",
			want:  []string{"5:16 wall-clock"},
			clean: "package p\n\nimport \"time\"\n\nfunc f() { _ = time.Duration(5) }\n",
		},
		{
			name:  "time.Now through an alias",
			bad:   "package p\n\nimport t \"time\"\n\nfunc f() { _ = t.Now() }\n",
			want:  []string{"5:16 wall-clock"},
			clean: "package p\n\nimport t \"time\"\n\nfunc f() { _ = t.Second }\n",
		},
		{
			// The time package is imported, but as t: a local variable
			// called time is just a variable.
			name:  "local variable named time while time is imported as t",
			bad:   "package p\n\nimport t \"time\"\n\nfunc f(time clock) { _ = t.Now(); _ = time.Now() }\n",
			want:  []string{"5:26 wall-clock"},
			clean: "package p\n\nimport t \"time\"\n\nfunc f(time clock) { _ = t.Second; _ = time.Now() }\n",
		},
		{
			name:  "package-level variable named time without the time import",
			bad:   "package p\n\nimport \"time\"\n\nfunc f() { _ = time.Now() }\n",
			want:  []string{"5:16 wall-clock"},
			clean: "package p\n\nvar time clock\n\nfunc f() { _ = time.Now() }\n",
		},
		{
			// A parameter called time shadows the import in the body,
			// but not in the parameter types, which are outside it.
			name:  "parameter named time shadows the import",
			bad:   "package p\n\nimport \"time\"\n\nfunc f(d time.Duration) { _ = time.Now() }\n",
			want:  []string{"5:31 wall-clock"},
			clean: "package p\n\nimport \"time\"\n\nfunc f(time clock, d time.Duration) { _ = time.Now() }\n",
		},
		{
			// The right-hand side of := is evaluated before the new
			// variable exists, so it still reads package time.
			name:  "short variable declaration named time",
			bad:   "package p\n\nimport \"time\"\n\nfunc f() { time := time.Now(); _ = time }\n",
			want:  []string{"5:20 wall-clock"},
			clean: "package p\n\nimport \"time\"\n\nfunc f() { time := clock{}; _ = time.Now() }\n",
		},
		{
			// A shadowing variable's scope ends with its block.
			name: "shadowing ends with the block",
			bad: "package p\n\nimport \"time\"\n\nfunc f() {\n" +
				"\t{\n\t\ttime := clock{}\n\t\t_ = time.Now()\n\t}\n" +
				"\t_ = time.Now()\n}\n",
			want: []string{"10:6 wall-clock"},
			clean: "package p\n\nimport \"time\"\n\nfunc f() {\n" +
				"\t{\n\t\ttime := clock{}\n\t\t_ = time.Now()\n\t}\n" +
				"\t_ = time.Second\n}\n",
		},
		{
			// The range over time.Tick's channel is not itself reported:
			// telling a channel from a slice needs types. Every channel
			// has to be spelled or received from somewhere, though, and
			// that place is reported (here, time.Tick).
			name:  "range variable named time",
			bad:   "package p\n\nimport \"time\"\n\nfunc f(d time.Duration) {\n\tfor time := range time.Tick(d) {\n\t\t_ = time\n\t}\n}\n",
			want:  []string{"6:20 wall-clock"},
			clean: "package p\n\nimport \"time\"\n\nfunc f(cs []clock) {\n\tfor _, time := range cs {\n\t\t_ = time.Now()\n\t}\n}\n",
		},
		{
			name:  "local var declaration named time",
			bad:   "package p\n\nimport \"time\"\n\nfunc f() {\n\tvar now = time.Now()\n\t_ = now\n}\n",
			want:  []string{"6:12 wall-clock"},
			clean: "package p\n\nimport \"time\"\n\nfunc f() {\n\tvar time clock\n\t_ = time.Now()\n}\n",
		},
		{
			name:  "dot-import of time",
			bad:   "package p\n\nimport . \"time\"\n\nvar _ = Now()\n",
			want:  []string{"3:8 dot-import"},
			clean: "package p\n\nimport _ \"time\"\n",
		},

		// math/rand/v2: seeded generators are how the simulation draws;
		// the package-level functions use the global source.
		{
			name:  "global rand.IntN",
			bad:   "package p\n\nimport \"math/rand/v2\"\n\nvar _ = rand.IntN(3)\n",
			want:  []string{"5:9 global-rand"},
			clean: "package p\n\nimport \"math/rand/v2\"\n\nfunc f(r *rand.Rand) int { return r.IntN(3) }\n",
		},
		{
			name:  "global rand.N, generic",
			bad:   "package p\n\nimport \"math/rand/v2\"\n\nvar _ = rand.N[int64](10)\n",
			want:  []string{"5:9 global-rand"},
			clean: "package p\n\nimport \"math/rand/v2\"\n\nvar _ = rand.New(rand.NewPCG(1, 2))\n",
		},
		{
			name:  "global rand.Shuffle through an alias",
			bad:   "package p\n\nimport r2 \"math/rand/v2\"\n\nfunc f(s []int) { r2.Shuffle(len(s), func(i, j int) {}) }\n",
			want:  []string{"5:19 global-rand"},
			clean: "package p\n\nimport r2 \"math/rand/v2\"\n\nfunc f(r *r2.Rand, s []int) { r.Shuffle(len(s), func(i, j int) {}) }\n",
		},
		{
			// Every allowed name of math/rand/v2 at once.
			name: "the seeded generators and their types",
			bad:  "package p\n\nimport \"math/rand/v2\"\n\nvar _ = rand.Float64\n",
			want: []string{"5:9 global-rand"},
			clean: "package p\n\nimport \"math/rand/v2\"\n\nvar (\n" +
				"\t_ *rand.Rand = rand.New(rand.NewChaCha8([32]byte{}))\n" +
				"\t_ rand.Source = rand.NewPCG(1, 2)\n" +
				"\t_ rand.PCG\n\t_ rand.ChaCha8\n" +
				"\t_ *rand.Zipf = rand.NewZipf(nil, 2, 1, 10)\n)\n",
		},
		{
			name:  "parameter named rand shadows the import",
			bad:   "package p\n\nimport \"math/rand/v2\"\n\nfunc f(r *rand.Rand) int { return rand.IntN(3) + r.IntN(3) }\n",
			want:  []string{"5:35 global-rand"},
			clean: "package p\n\nimport \"math/rand/v2\"\n\nfunc f(rand *rand.Rand) int { return rand.IntN(3) }\n",
		},
		{
			name:  "dot-import of math/rand/v2",
			bad:   "package p\n\nimport . \"math/rand/v2\"\n\nvar _ = IntN(3)\n",
			want:  []string{"3:8 dot-import"},
			clean: "package p\n\nimport \"math/rand/v2\"\n\nvar _ = rand.NewPCG(1, 2)\n",
		},
	}

	// Each time function that reads or waits on the real clock, used as a
	// value (a use is enough: whoever calls it later reads the real clock),
	// against a pure name of the same package.
	for _, fn := range []string{"Now", "Since", "Until", "Sleep", "After", "AfterFunc", "Tick", "NewTimer", "NewTicker"} {
		cases = append(cases, ruleCase{
			name:  "time." + fn,
			bad:   "package p\n\nimport \"time\"\n\nvar _ = time." + fn + "\n",
			want:  []string{"5:9 wall-clock"},
			clean: "package p\n\nimport \"time\"\n\nvar _ = time.Unix\n",
		})
	}

	// Each forbidden package, plain-imported, against an allowed neighbour.
	for _, p := range []struct{ bad, clean string }{
		{"sync", "sort"},
		{"sync/atomic", "math/bits"},
		{"math/rand", "math/rand/v2"},
		{"crypto/rand", "crypto/sha256"},
		{"os", "io"},
		{"os/exec", "io"},
		{"os/signal", "io"},
		{"os/user", "io"},
		{"net", "net/url"},
		{"net/http", "net/netip"},
		{"net/http/httptest", "net/url"},
		{"io/ioutil", "io"},
		{"syscall", "errors"},
		{"unsafe", "unicode"},
		{"runtime", "strconv"},
		{"runtime/debug", "strconv"},
		{"plugin", "path"},
		{"C", "container/list"},
		{"context", "errors"},
		{"log", "fmt"},
		{"log/slog", "fmt"},
	} {
		cases = append(cases, ruleCase{
			name:  "import " + p.bad,
			bad:   "package p\n\nimport \"" + p.bad + "\"\n",
			want:  []string{"3:8 import"},
			clean: "package p\n\nimport \"" + p.clean + "\"\n",
		})
	}
	return cases
}

func TestCheckSourceRules(t *testing.T) {
	for _, tc := range ruleCases() {
		t.Run(tc.name, func(t *testing.T) {
			bad, err := CheckSource("bad.go", []byte(tc.bad))
			if err != nil {
				t.Fatalf("bad: %v", err)
			}
			if got := summary(bad); !slices.Equal(got, tc.want) {
				t.Errorf("bad: got %q, want %q; findings:\n%s", got, tc.want, lines(bad))
			}
			for _, f := range bad {
				if f.Pos.Filename != "bad.go" || f.Reason == "" {
					t.Errorf("bad: finding %+v lacks its file or its reason", f)
				}
			}
			clean, err := CheckSource("clean.go", []byte(tc.clean))
			if err != nil {
				t.Fatalf("clean: %v", err)
			}
			if len(clean) != 0 {
				t.Errorf("clean: got findings:\n%s", lines(clean))
			}
		})
	}
}

func lines(fs []Finding) string {
	s := make([]string, len(fs))
	for i, f := range fs {
		s[i] = f.String()
	}
	return strings.Join(s, "\n")
}

// TestReasons checks that a reason says what was found in the words of the
// source, including how an import was made and under which alias.
func TestReasons(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"package p\n\nimport . \"os\"\n", `bad.go:3:8: dot-import of "os": `},
		{"package p\n\nimport _ \"os\"\n", `bad.go:3:8: blank import of "os": `},
		{"package p\n\nimport o \"os\"\n", `bad.go:3:8: import of "os": `},
		{"package p\n\nimport \"runtime/debug\"\n", `bad.go:3:8: import of "runtime/debug": runtime/debug is part of runtime: `},
		{"package p\n\nimport t \"time\"\n\nvar _ = t.Sleep\n", `bad.go:5:9: time.Sleep (imported as t) waits on the real clock`},
		{"package p\n\nimport \"math/rand/v2\"\n\nvar _ = rand.Perm\n", `bad.go:5:9: rand.Perm draws from math/rand/v2's global source`},
		{"package p\n\nfunc f() { go g() }\n", `bad.go:3:12: go statement: `},
	} {
		found, err := CheckSource("bad.go", []byte(tc.src))
		if err != nil {
			t.Fatal(err)
		}
		if len(found) != 1 || !strings.HasPrefix(found[0].String(), tc.want) {
			t.Errorf("%q: got\n%s\nwant one finding starting %q", tc.src, lines(found), tc.want)
		}
	}
}

// TestCheckSourceSorted checks that findings come out in source order even
// where the walk meets them in another (here the select is entered before
// the receive inside it, on a later line, and the import is checked first).
func TestCheckSourceSorted(t *testing.T) {
	src := "package p\n\nimport \"sync\"\n\nfunc f(c T) {\n\tselect {\n\tcase <-c:\n\t}\n\tgo g()\n}\n"
	found, err := CheckSource("x.go", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"3:8 import", "6:2 select", "7:7 channel", "9:2 go-statement"}
	if got := summary(found); !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestCheckSourceSyntaxError(t *testing.T) {
	_, err := CheckSource("broken.go", []byte("package p\n\nfunc f( {\n"))
	if err == nil || !strings.Contains(err.Error(), "broken.go:3") {
		t.Fatalf("got error %v, want one naming broken.go:3", err)
	}
}

// writeFiles creates files (slash-separated paths relative to root).
func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, src := range files {
		path := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestCheckTreeCatchesAddedGoroutine copies the real sim, model, nodes and
// faults folders into a temporary repository, adds nodes/bad.go starting a
// goroutine, and shows the lint reports exactly that new file and line: the
// lint fails when a forbidden construct is added to nodes/. It compares
// against the copy before the addition, so it holds whatever the real tree
// contains.
func TestCheckTreeCatchesAddedGoroutine(t *testing.T) {
	repo := repoRoot(t)
	tmp := t.TempDir()
	for _, dir := range SimDirs {
		if err := os.CopyFS(filepath.Join(tmp, dir), os.DirFS(filepath.Join(repo, dir))); err != nil {
			t.Fatal(err)
		}
	}
	before, err := CheckTree(tmp, SimDirs...)
	if err != nil {
		t.Fatal(err)
	}

	writeFiles(t, tmp, map[string]string{
		"nodes/bad.go": "package nodes\n\n// Tick starts work off the event queue.\nfunc Tick(f func()) {\n\tgo func() {}()\n\tf()\n}\n",
	})
	after, err := CheckTree(tmp, SimDirs...)
	if err != nil {
		t.Fatal(err)
	}
	var added []string
	for _, f := range after {
		if !slices.Contains(before, f) {
			added = append(added, f.String())
		}
	}
	if len(added) != 1 || !strings.HasPrefix(added[0], "nodes/bad.go:5:2: go statement") {
		t.Fatalf("added findings %q, want one at nodes/bad.go:5:2 naming the go statement", added)
	}
	if len(after) != len(before)+1 {
		t.Fatalf("got %d findings after adding nodes/bad.go, want %d", len(after), len(before)+1)
	}
}

// TestCheckTreeWalk checks what CheckTree reads and what it skips, and that
// its output is sorted by file whatever order the folders were given in.
func TestCheckTreeWalk(t *testing.T) {
	root := t.TempDir()
	goroutine := "package x\n\nfunc f() { go f() }\n"
	writeFiles(t, root, map[string]string{
		"go.mod":                       "module example\n",
		"sim/clean.go":                 "package sim\n\nimport \"time\"\n\nconst Tick = time.Millisecond\n",
		"nodes/broker/deep.go":         "package broker\n\nvar c chan int\n",
		"nodes/bad.go":                 goroutine,
		"nodes/bad_test.go":            goroutine, // tests may drive runs with goroutines
		"nodes/testdata/fixture.go":    goroutine, // not compiled
		"nodes/broker/testdata/x.go":   goroutine,
		"nodes/_scratch/x.go":          goroutine, // ignored by the go tool
		"nodes/.hidden/x.go":           goroutine,
		"nodes/_ignored.go":            goroutine,
		"nodes/notes.txt":              "go func() {}()",
		"faults/swarm.go":              "package faults\n\nimport \"os\"\n",
		"checkers/outside.go":          goroutine, // not a simulation folder
		"model/sub/deeper/fine.go":     "package deeper\n",
		"model/sub/deeper/fine_doc.go": "// Package deeper.\npackage deeper\n",
	})
	found, err := CheckTree(root, "sim", "nodes", "model", "faults")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range found {
		got = append(got, fmt.Sprintf("%s:%d:%d %s", f.Pos.Filename, f.Pos.Line, f.Pos.Column, f.Rule))
	}
	want := []string{
		"faults/swarm.go:3:8 import",
		"nodes/bad.go:3:12 go-statement",
		"nodes/broker/deep.go:3:7 channel",
	}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}

	sub, err := ModuleRoot(filepath.Join(root, "nodes", "broker"))
	if err != nil || sub != root {
		t.Errorf("ModuleRoot from nodes/broker = %q, %v; want %q", sub, err, root)
	}
}

// TestCheckTreeMissingFolder checks that a misspelt folder is an error, not a
// silent pass over nothing.
func TestCheckTreeMissingFolder(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{"nodes/ok.go": "package nodes\n"})
	if _, err := CheckTree(root, "nodes", "node"); err == nil {
		t.Fatal("CheckTree over a missing folder succeeded, want an error")
	}
}

// TestCheckTreeSyntaxError checks that a file the lint cannot parse fails
// the check instead of being passed over.
func TestCheckTreeSyntaxError(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{"sim/broken.go": "package sim\n\nfunc (\n"})
	_, err := CheckTree(root, "sim")
	if err == nil || !strings.Contains(err.Error(), "broken.go") {
		t.Fatalf("got error %v, want one naming broken.go", err)
	}
}
