package reports

import (
	"io"

	"kafkasim/internal/atomicfile"
)

// WriteFile writes path through a temporary file renamed into place, so a
// failure (or a reader looking at the folder meanwhile) never sees a
// half-written report. The command line writes its other outputs with it
// too. The rule is atomicfile.Write's.
func WriteFile(path string, fill func(io.Writer) error) error {
	return atomicfile.Write(path, fill)
}
