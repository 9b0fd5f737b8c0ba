package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// runDir is the output directory of kafkasim run -out. The run is written
// into a temporary directory beside it and renamed into place at the end,
// so the path names either nothing or a whole run directory; and a path
// that already names something (a file, a symbolic link, a FIFO, a
// directory with anything in it) is refused before the run starts, so
// -out never destroys what it names.
type runDir struct {
	path string
	tmp  string
	// empty: path was an empty directory, replaced at the end.
	empty bool
	// force: a directory with files in it is accepted (-force) and the
	// run is moved into it at the end, replacing only regular files.
	force, into bool
}

// newRunDir checks path and creates the temporary directory.
func newRunDir(path string, force bool) (*runDir, error) {
	d := &runDir{path: filepath.Clean(path), force: force}
	if err := d.check(); err != nil {
		return nil, err
	}
	parent := filepath.Dir(d.path)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp(parent, "."+filepath.Base(d.path)+".tmp-")
	if err != nil {
		return nil, err
	}
	d.tmp = tmp
	return d, nil
}

// check refuses a path that names anything but an empty directory.
func (d *runDir) check() error {
	fi, err := os.Lstat(d.path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		return err
	}
	switch {
	case fi.Mode()&os.ModeSymlink != 0:
		return fmt.Errorf("-out %s: is a symbolic link; name a new directory", d.path)
	case !fi.IsDir():
		return fmt.Errorf("-out %s: exists and is a %s, not a directory; name a new directory", d.path, describeMode(fi.Mode()))
	}
	f, err := os.Open(d.path)
	if err != nil {
		return err
	}
	names, err := f.Readdirnames(1)
	f.Close()
	if len(names) > 0 {
		if d.force {
			d.into = true
			return nil
		}
		return fmt.Errorf("-out %s: is not empty; name a new directory, or give -force to write into it", d.path)
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	d.empty = true
	return nil
}

// relocate rewrites paths written under the temporary directory to where
// they will be once it is renamed.
func (d *runDir) relocate(paths []string) {
	for i, p := range paths {
		if rel, err := filepath.Rel(d.tmp, p); err == nil && !strings.HasPrefix(rel, "..") {
			paths[i] = filepath.Join(d.path, rel)
		}
	}
}

// commit renames the temporary directory into place. Whatever appeared at
// the path meanwhile is left alone: the rename then fails, and the run is
// discarded.
func (d *runDir) commit() error {
	if err := os.Chmod(d.tmp, 0o755); err != nil {
		d.discard()
		return err
	}
	if d.into {
		if err := checkMoveInto(d.tmp, d.path); err != nil {
			d.discard()
			return fmt.Errorf("-out %s: %v; nothing was written", d.path, err)
		}
		if err := moveInto(d.tmp, d.path); err != nil {
			d.discard()
			return fmt.Errorf("-out %s: %v", d.path, err)
		}
		return nil
	}
	if d.empty {
		// Remove fails on a directory that is no longer empty.
		if err := os.Remove(d.path); err != nil && !os.IsNotExist(err) {
			d.discard()
			return fmt.Errorf("-out %s: %v", d.path, err)
		}
	}
	if err := os.Rename(d.tmp, d.path); err != nil {
		d.discard()
		return fmt.Errorf("-out %s: something appeared there during the run; nothing was written (%v)", d.path, err)
	}
	return nil
}

// discard removes the temporary directory.
func (d *runDir) discard() {
	if d != nil && d.tmp != "" {
		os.RemoveAll(d.tmp)
	}
}
