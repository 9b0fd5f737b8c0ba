package scenarios

import (
	"fmt"
	"slices"
	"strings"

	"kafkasim/checkers"
)

// Expect is what a scenario promises of its runs: Pass, the zero value,
// for a scenario that must pass, or the one anomaly the checkers must name,
// given by their own constant (Expect(checkers.AckedWriteLost); an untyped
// constant converts by itself): a historical bug under the configuration
// that had it.
type Expect string

// Pass is the expectation of a scenario that must pass.
const Pass Expect = ""

// passWord is how an experiment file writes Pass.
const passWord = "pass"

// ParseExpect reads an experiment file's expect: "pass" (or nothing) or an
// anomaly the checkers name; anything else is an error that lists them.
func ParseExpect(s string) (Expect, error) {
	switch {
	case s == "" || s == passWord:
		return Pass, nil
	case slices.Contains(checkers.AnomalyNames(), s):
		return Expect(s), nil
	}
	return Pass, fmt.Errorf("expect %q: want %s or an anomaly the checkers name (%s)", s, passWord, strings.Join(checkers.AnomalyNames(), ", "))
}

// Word is e as an experiment file writes it: "pass" or the anomaly's name.
func (e Expect) Word() string {
	if e == Pass {
		return passWord
	}
	return string(e)
}

// Anomaly is the name of the anomaly e expects, "" for Pass: what a
// result records as Expected.
func (e Expect) Anomaly() string { return string(e) }

// Names reports whether the checkers' anomaly is the one e expects.
func (e Expect) Names(anomaly string) bool { return e != Pass && anomaly == string(e) }

// lossFamily are the anomalies that come with losing acknowledged data or
// with replicas that diverged: what a historical data-loss bug may show
// besides the anomaly it is named for.
var lossFamily = []string{
	checkers.LostWrite, checkers.Unseen, checkers.AckedWriteLost, checkers.InconsistentOffsets,
	checkers.NonmonotonicSend, checkers.Nonlinearizable, checkers.Duplicate, checkers.ReplicaDivergence,
}

// zombieFamily are what two members consuming one partition at once
// shows besides the double ownership itself.
var zombieFamily = []string{checkers.DoubleOwner, checkers.GroupDuplicate, checkers.PollUnowned, checkers.CommitRegression}

// excuses reports whether an error of anomaly's kind may come with the
// anomaly e expects (its family): a bug that loses data shows the loss's
// other faces, and a zombie member's double ownership its reads and
// commits. Any other error is a bug of the testbed, not the one replayed.
func (e Expect) excuses(anomaly string) bool {
	if e.Names(anomaly) || slices.Contains(lossFamily, anomaly) {
		return true
	}
	return slices.Contains(zombieFamily, string(e)) && slices.Contains(zombieFamily, anomaly)
}

// MetBy reports whether a run kept the promise: under Pass it passed;
// otherwise the checkers named the expected anomaly and no error of
// another kind than its family (excuses).
func (e Expect) MetBy(res Result) bool {
	if e == Pass {
		return res.OK
	}
	shown := false
	for _, v := range res.Violations {
		shown = shown || e.Names(v.Anomaly)
		if v.Error && !e.excuses(v.Anomaly) {
			return false
		}
	}
	return shown
}
