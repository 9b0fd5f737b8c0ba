package scenarios

import (
	"errors"
	"reflect"
	"testing"

	"kafkasim/faults"
)

// FuzzExperiment: no input makes the experiment parser panic or give an
// error without a position; whatever it accepts prints to a file it
// accepts again as the same experiment (go test -fuzz FuzzExperiment).
// The seed corpus is a file with every key and every catalog scenario
// printed.
func FuzzExperiment(f *testing.F) {
	f.Add([]byte(goodExperiment))
	f.Add([]byte(rackExperiment))
	for _, sc := range Catalog() {
		if e, err := ExperimentOf(sc); err == nil {
			f.Add([]byte(Format(e)))
		}
	}
	f.Add([]byte("name = \"x\"\n[phases]\nsafety = \"1s\"\n[faults]\nschedule = \"from 1s to 2s crash 1\"\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		e, _, err := ParseExperiment("f.toml", data)
		if err != nil {
			var ee *ExperimentError
			var pe *faults.ParseError
			if !errors.As(err, &ee) && !errors.As(err, &pe) {
				t.Fatalf("%T without a position: %v", err, err)
			}
			return
		}
		text := Format(e)
		again, _, err := ParseExperiment("f.toml", []byte(text))
		if err != nil {
			t.Fatalf("accepted, printed, refused: %v\n%s", err, text)
		}
		if !reflect.DeepEqual(normalized(e), normalized(again)) {
			t.Fatalf("printed and parsed again, it changed:\n%+v\n%+v\n%s", e, again, text)
		}
	})
}
