package atomicfile

import (
	"bufio"
	"io"
	"os"
	"path/filepath"
)

// Write writes path through a temporary file renamed into place, so a
// failure (or a reader looking at the folder meanwhile) never sees a
// half-written file.
//
// The temporary file is a new one beside path (os.CreateTemp: never an
// existing file, nor a link followed), removed on every failure,
// the rename's included.
func Write(path string, fill func(io.Writer) error) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	bw := bufio.NewWriter(f)
	err = fill(bw)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Chmod(tmp, 0o644); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}
