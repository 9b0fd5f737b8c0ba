package lint

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// SimDirs are the folders, relative to the repository root, that make up the
// simulated world and so must pass the lint (README, "The kernel").
// scenarios/fixture, the harness that builds a cluster and its clients, is
// outside nodes/ but runs inside every run, so it is held to the same rules.
var SimDirs = []string{"sim", "model", "nodes", "faults", "scenarios/fixture"}

// CheckTree checks every Go source file under each of dirs (relative to
// root), recursively, and returns all findings sorted by file, line and
// column. File names in findings are relative to root with forward slashes,
// so the output is the same on every machine.
//
// It skips what the go tool never compiles into the simulation: _test.go
// files (tests may use goroutines and the real clock to drive runs), and
// testdata folders, and folders and files whose names start with "." or "_".
//
// A missing folder is an error rather than nothing to check: a misspelt or
// renamed folder would otherwise pass the lint silently. So is a file that
// does not parse.
func CheckTree(root string, dirs ...string) ([]Finding, error) {
	var all []Finding
	for _, dir := range dirs {
		top := filepath.Join(root, filepath.FromSlash(dir))
		info, err := os.Stat(top)
		if err != nil {
			return nil, fmt.Errorf("lint: %w", err)
		}
		if !info.IsDir() {
			return nil, fmt.Errorf("lint: %s is not a folder", top)
		}
		err = filepath.WalkDir(top, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if path != top && skipDir(d.Name()) {
					return filepath.SkipDir
				}
				return nil
			}
			if !isChecked(d.Name()) {
				return nil
			}
			src, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			name, err := filepath.Rel(root, path)
			if err != nil {
				return err
			}
			found, err := CheckSource(filepath.ToSlash(name), src)
			if err != nil {
				return err
			}
			all = append(all, found...)
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("lint: %w", err)
		}
	}
	sortFindings(all)
	return all, nil
}

// skipDir reports whether the go tool ignores a folder of this name when
// matching packages, and the lint with it.
func skipDir(name string) bool {
	return name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")
}

// isChecked reports whether a file is Go source the go tool compiles into a
// package's non-test build.
func isChecked(name string) bool {
	return strings.HasSuffix(name, ".go") && !strings.HasSuffix(name, "_test.go") &&
		!strings.HasPrefix(name, ".") && !strings.HasPrefix(name, "_")
}

// ModuleRoot returns the nearest folder at or above dir that holds a go.mod
// file: the repository root when called from inside one of its packages,
// which is where go test runs a package's tests.
func ModuleRoot(dir string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for {
		_, err := os.Stat(filepath.Join(dir, "go.mod"))
		if err == nil {
			return dir, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", errors.New("lint: no go.mod at or above the working directory")
		}
		dir = up
	}
}
