package doclinks

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// readmeLinesMax is the README's length limit: what it does not say in that
// many lines belongs in docs/, linked from it.
const readmeLinesMax = 250

// repoRoot walks up from the test's working directory (this package's
// folder) to the folder holding go.mod.
func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's folder")
		}
		dir = parent
	}
}

// docFiles lists README.md and every Markdown file under docs/, as paths
// from root with '/', sorted.
func docFiles(t *testing.T, root string) []string {
	t.Helper()
	files := []string{"README.md"}
	err := filepath.WalkDir(filepath.Join(root, "docs"), func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(path, ".md") {
			rel, err := filepath.Rel(root, path)
			if err != nil {
				return err
			}
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(files[1:])
	return files
}

// TestRepositoryLinksResolve is the check itself, over the real README and
// docs: it fails with file:line: reason for every dead relative link.
func TestRepositoryLinksResolve(t *testing.T) {
	root := repoRoot(t)
	checked := 0
	for _, rel := range docFiles(t, root) {
		problems, err := checkFile(root, rel)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range problems {
			t.Error(p)
		}
		checked++
	}
	if checked < 2 {
		t.Fatalf("checked %d files: README.md and docs/ should both be there", checked)
	}
}

// TestReadmeStaysShort holds README.md to readmeLinesMax lines.
func TestReadmeStaysShort(t *testing.T) {
	text, err := os.ReadFile(filepath.Join(repoRoot(t), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(strings.TrimRight(string(text), "\n"), "\n") + 1; n > readmeLinesMax {
		t.Errorf("README.md has %d lines, more than %d: move the detail into docs/ and link to it", n, readmeLinesMax)
	}
}

// writeTree makes a small repository of Markdown files for the tests of the
// checker itself.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for name, text := range files {
		path := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// TestCheckerFindsBrokenLinks shows the checker catching each kind of dead
// link, at its line.
func TestCheckerFindsBrokenLinks(t *testing.T) {
	root := writeTree(t, map[string]string{
		"go.mod": "module x\n",
		"README.md": "# x\n" +
			"see [the gone page](docs/gone.md)\n" +
			"and [a missing heading](docs/a.md#no-such-heading)\n" +
			"and [out](../shared/DESIGN.md)\n" +
			"and ![a plot](docs/missing.png)\n" +
			"and [here](#nowhere)\n" +
			"and [rooted](/docs/a.md)\n",
		"docs/a.md": "# A page\n\n## Some heading\n",
	})
	problems, err := checkFile(root, "README.md")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range problems {
		got = append(got, p.String())
	}
	want := []string{
		`README.md:2: link "docs/gone.md" names no file or folder of the repository`,
		`README.md:3: link "docs/a.md#no-such-heading" names no heading of a.md`,
		`README.md:4: link "../shared/DESIGN.md" leads outside the repository`,
		`README.md:5: link "docs/missing.png" names no file or folder of the repository`,
		`README.md:6: link "#nowhere" names no heading of README.md`,
		`README.md:7: link "/docs/a.md" is absolute: write it relative to this file`,
	}
	if !slices.Equal(got, want) {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestCheckerPassesGoodLinks is the nearby fine case: links to files,
// folders, images and headings that exist (GitHub's anchors for headings
// with code, punctuation and repeats), URLs, and link-like text in code,
// give no problem.
func TestCheckerPassesGoodLinks(t *testing.T) {
	root := writeTree(t, map[string]string{
		"go.mod": "module x\n",
		"docs/a.md": "# A page\n\n" +
			"## The kernel (`sim`)\n\n## Exit codes\n\n## Exit codes\n\n" +
			"## What changes, and why: KIP-101\n\n" +
			"see [below](#the-kernel-sim), [again](#exit-codes-1), [kip](#what-changes-and-why-kip-101)\n" +
			"[up](../README.md) [folder](../docs) ![plot](p.png) [web](https://example.org/x#y)\n" +
			"`[not a link](nowhere.md)`\n" +
			"```\n[also not](nowhere.md)\n# not a heading\n```\n",
		"docs/p.png": "png",
		"README.md":  "# x\n[the kernel](docs/a.md#the-kernel-sim)\n",
	})
	for _, rel := range []string{"README.md", "docs/a.md"} {
		problems, err := checkFile(root, rel)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range problems {
			t.Error(p)
		}
	}
}
