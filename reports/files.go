package reports

import (
	"bufio"
	"io"
	"os"
)

// WriteFile writes path through a temporary file renamed into place, so a
// failure (or a reader looking at the folder meanwhile) never sees a
// half-written report. The command line writes its other outputs with it
// too.
func WriteFile(path string, fill func(io.Writer) error) error {
	tmp := path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
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
	return os.Rename(tmp, path)
}
