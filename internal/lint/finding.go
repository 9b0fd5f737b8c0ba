package lint

import (
	"cmp"
	"go/token"
	"slices"
)

// Rule names. A finding carries one so that tests and tools can group
// findings without parsing the human-readable reason.
const (
	RuleGo         = "go-statement" // a go statement
	RuleChannel    = "channel"      // a channel type, send or receive
	RuleSelect     = "select"       // a select statement
	RuleImport     = "import"       // an import of a forbidden package (named, dot or blank)
	RuleDotImport  = "dot-import"   // a dot-import of a package whose uses are checked by name
	RuleWallClock  = "wall-clock"   // a use of a time function that reads or waits on the real clock
	RuleGlobalRand = "global-rand"  // a use of math/rand/v2's global source
)

// Finding is one forbidden construct found in a source file.
type Finding struct {
	Pos    token.Position // where the construct starts
	Rule   string         // one of the Rule constants
	Reason string         // what was found and why it breaks determinism
}

// String formats the finding the way compilers and vet do,
// "file:line:col: reason", so editors and terminals can jump to it.
func (f Finding) String() string {
	return f.Pos.String() + ": " + f.Reason
}

// sortFindings orders findings by file, line, column and then rule, so that
// the lint's output is the same on every run whatever order files were walked
// or nodes visited in.
func sortFindings(fs []Finding) {
	slices.SortStableFunc(fs, func(a, b Finding) int {
		return cmp.Or(
			cmp.Compare(a.Pos.Filename, b.Pos.Filename),
			cmp.Compare(a.Pos.Line, b.Pos.Line),
			cmp.Compare(a.Pos.Column, b.Pos.Column),
			cmp.Compare(a.Rule, b.Rule),
		)
	})
}
