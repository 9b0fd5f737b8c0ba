package main

import (
	"io"
	"os"
	"path/filepath"

	"kafkasim/checkers"
)

// checkOut is the -out directory of kafkasim check: porcupine's
// visualizations of the partitions that are not linearizable. It follows
// run -out's rule (runDir): a path that already names something other
// than an empty directory is refused before anything is judged, the files
// are written into a temporary directory beside it, and that directory is
// renamed into place at the end, so an existing file, symbolic link, FIFO
// or directory is never written through or replaced, and a failure leaves
// nothing behind.
type checkOut struct{ d *runDir }

// newCheckOut checks path and creates the temporary directory; an empty
// path is no -out, and every method is then a no-op.
func newCheckOut(path string) (*checkOut, error) {
	if path == "" {
		return &checkOut{}, nil
	}
	d, err := newRunDir(path, false)
	if err != nil {
		return nil, err
	}
	return &checkOut{d: d}, nil
}

// dir is where the checkers write, "" without -out.
func (c *checkOut) dir() string {
	if c.d == nil {
		return ""
	}
	return c.d.tmp
}

// commit renames the directory into place and points the verdict's
// visualization paths at where they now are.
func (c *checkOut) commit(res *checkers.Result) error {
	if c.d == nil {
		return nil
	}
	if err := c.d.commit(); err != nil {
		return err
	}
	for i, pc := range res.Linearizability {
		if pc.Visualization == "" {
			continue
		}
		paths := []string{pc.Visualization}
		c.d.relocate(paths)
		res.Linearizability[i].Visualization = paths[0]
	}
	return nil
}

// stdin is what check -history - reads; the tests give their own.
var stdin io.Reader = os.Stdin

// stdinName names standard input in "file:line: reason" errors.
const stdinName = "<stdin>"

// openHistory opens -history's file, or standard input for "-", and the
// name its errors carry.
func openHistory(path string) (io.ReadCloser, string, error) {
	if path == "-" {
		return io.NopCloser(stdin), stdinName, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, "", err
	}
	return f, filepath.Base(path), nil
}
