package scenarios

import (
	"encoding/json"
	"runtime/debug"
	"slices"

	"kafkasim/checkers"
)

// RunCheck is a saved run judged again.
type RunCheck struct {
	Run    SavedRun
	Result checkers.Result
	// Same: the re-check reached the run's verdict with the run's
	// findings, in the same order. Otherwise Added are the findings only
	// the re-check made and Removed those only the run made.
	Same           bool
	Added, Removed []Finding
}

// CheckRun judges the run saved in dir (by SaveRun, or kafkasim run -out)
// again, from its saved history, replica logs, observations and settings.
// A missing or malformed file is an error naming the file and line.
func CheckRun(dir string) (RunCheck, error) {
	s, err := LoadRun(dir)
	if err != nil {
		return RunCheck{}, err
	}
	return s.Check(""), nil
}

// Check judges the saved run again; outDir, when set, receives porcupine's
// visualization of a partition found not linearizable.
func (s *SavedRun) Check(outDir string) RunCheck {
	opts := s.Options
	opts.OutDir = outDir
	rc := RunCheck{Run: *s}
	if c := s.cutShort(); c != nil {
		// The run stopped at a panic or the event limit: what it recorded
		// is cut short, and judging it would report the rest as lost. Why
		// it stopped is recorded, not judged again, as liveness is.
		rc.Result = c.result()
	} else {
		rc.Result = checkers.Check(s.Input, opts)
	}
	now := FindingsOf(rc.Result.Violations)
	rc.Added = subtract(now, s.Manifest.Violations)
	rc.Removed = subtract(s.Manifest.Violations, now)
	rc.Same = rc.Result.Valid == s.Manifest.Valid && len(now) == len(s.Manifest.Violations) &&
		slices.EqualFunc(now, s.Manifest.Violations, func(a, b Finding) bool { return findingKey(a) == findingKey(b) })
	return rc
}

// subtract returns the findings of xs not matched one for one in ys.
func subtract(xs, ys []Finding) []Finding {
	left := map[string]int{}
	for _, y := range ys {
		left[findingKey(y)]++
	}
	var out []Finding
	for _, x := range xs {
		k := findingKey(x)
		if left[k] > 0 {
			left[k]--
			continue
		}
		out = append(out, x)
	}
	return out
}

func findingKey(f Finding) string {
	b, err := json.Marshal(f)
	if err != nil {
		panic("scenarios: a finding does not marshal: " + err.Error())
	}
	return string(b)
}

// Version names the kafkasim build: the module version and, when the
// binary was built from a repository, its commit (with "+modified" for
// uncommitted changes). A run directory records it.
func Version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	v := bi.Main.Version
	if v == "" {
		v = "(devel)"
	}
	rev, modified := "", false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	if rev != "" {
		v += " " + rev
		if modified {
			v += "+modified"
		}
	}
	return v
}

// cutShort is why the saved run stopped before its end, as its finding
// of the checker "simulation" recorded; nil for a run that finished.
func (s *SavedRun) cutShort() *cutShort {
	for _, f := range s.Manifest.Violations {
		if f.Checker == checkers.CheckerSimulation {
			return &cutShort{anomaly: f.Anomaly, detail: f.Detail}
		}
	}
	return nil
}
