package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"kafkasim/reports"
)

// A sweep writes straight into its folder, results.jsonl first and a row
// at a time, so that a sweep stopped by Ctrl-C, a crash or a kill leaves
// every finished run on disk for `sweep -resume`. The folder is therefore
// chosen and checked before the first run: a new folder in the run store,
// a new -out folder, an empty one, or (with -force) one that holds files,
// from which only a previous sweep's own outputs are removed.

// sweepOutputs are the names a sweep or merge writes in its folder:
// -force removes these and nothing else.
var sweepOutputs = append([]string{manifestName, "results.jsonl", reports.RunsDir}, reports.SweepFiles...)

// prepareSweepDir makes or checks the sweep's folder. created says the
// folder is new (so that a failure before the first result may remove
// it); stored says it is in the run store.
func prepareSweepDir(out string, force bool, name string) (dir string, created, stored bool, err error) {
	if out == "" {
		dir, err := newStoreDir(name, time.Now())
		return dir, true, true, err
	}
	dir = filepath.Clean(out)
	fi, err := os.Lstat(dir)
	switch {
	case os.IsNotExist(err):
		if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
			return "", false, false, err
		}
		if err := os.Mkdir(dir, 0o755); err != nil {
			return "", false, false, fmt.Errorf("-out %s: %v", dir, err)
		}
		return dir, true, false, nil
	case err != nil:
		return "", false, false, err
	case fi.Mode()&os.ModeSymlink != 0:
		return "", false, false, fmt.Errorf("-out %s: is a symbolic link; name a new directory", dir)
	case !fi.IsDir():
		return "", false, false, fmt.Errorf("-out %s: exists and is a %s, not a directory; name a new directory", dir, describeMode(fi.Mode()))
	}
	empty, err := isEmptyDir(dir)
	if err != nil {
		return "", false, false, err
	}
	if empty {
		return dir, false, false, nil
	}
	if !force {
		return "", false, false, fmt.Errorf("-out %s: is not empty; name a new directory, or give -force to reuse it (a previous sweep's files in it are removed)", dir)
	}
	return dir, false, false, clearSweepOutputs(dir)
}

// isEmptyDir says dir has no entries.
func isEmptyDir(dir string) (bool, error) {
	f, err := os.Open(dir)
	if err != nil {
		return false, err
	}
	defer f.Close()
	names, err := f.Readdirnames(1)
	if len(names) > 0 {
		return false, nil
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return false, err
	}
	return true, nil
}

// clearSweepOutputs removes a previous sweep's outputs from dir, so that
// the new report lists only its own runs. Each must be what a sweep
// writes (a regular file; runs/ a real folder): anything else standing at
// one of those names stops the sweep before anything is removed.
func clearSweepOutputs(dir string) error {
	var remove []string
	for _, name := range sweepOutputs {
		p := filepath.Join(dir, name)
		fi, err := os.Lstat(p)
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			return err
		}
		want := fi.Mode().IsRegular()
		if name == reports.RunsDir {
			want = fi.IsDir()
		}
		if !want {
			return fmt.Errorf("-out %s: %s is a %s, which a sweep does not write; left alone, and nothing was run", dir, name, describeMode(fi.Mode()))
		}
		remove = append(remove, p)
	}
	for _, p := range remove {
		if err := os.RemoveAll(p); err != nil {
			return err
		}
	}
	return nil
}
