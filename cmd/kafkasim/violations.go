package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"

	"kafkasim/checkers"
	"kafkasim/reports"
)

// wideFlag is -wide, which every command that prints tables takes.
func wideFlag(fs *flag.FlagSet) *bool {
	return fs.Bool("wide", false, fmt.Sprintf("print tables whole, however wide (by default they fit %d columns and leave out what does not fit)", reports.TerminalWidth))
}

// fitted runs print, which writes what it prints to w, fitted to
// reports.TerminalWidth unless wide (reports.FitLines): prose wraps,
// tables were fitted as they were drawn, commands stay whole.
func fitted(w io.Writer, wide bool, print func(io.Writer) error) error {
	if wide {
		return print(w)
	}
	var buf bytes.Buffer
	err := print(&buf)
	if _, werr := io.WriteString(w, reports.FitLines(buf.String(), reports.TerminalWidth)); err == nil {
		err = werr
	}
	return err
}

// violationDetails bounds the violations run prints one by one: the
// summary by anomaly above them has every kind; result.json (with -out)
// and -json have every finding.
const violationDetails = 20

// writeViolations prints a run's violations: first one line per anomaly
// (how many, and the first), then, unless that was every finding, the
// first few findings in full.
func writeViolations(w io.Writer, vs []checkers.Violation, wide bool) error {
	if len(vs) == 0 {
		return nil
	}
	fmt.Fprintf(w, "%d violations by anomaly:\n", len(vs))
	summary := reports.AnomalyTable(vs)
	if err := summary.Render(w, wide); err != nil {
		return err
	}
	if len(summary.Rows) == len(vs) {
		return nil // one finding per anomaly: the summary showed each whole
	}
	for i := range vs {
		if i == violationDetails {
			fmt.Fprintf(w, "... and %d more (every one is in result.json with -out, or with -json)\n", len(vs)-i)
			break
		}
		fmt.Fprintln(w, vs[i].String())
	}
	return nil
}

// parseFlags parses a command's flags and refuses arguments beside them.
// When ok is false the command ends with code: 0 for -h, 2 for a bad flag
// or argument (already reported on stderr).
func parseFlags(fs *flag.FlagSet, args []string, stderr io.Writer) (code int, ok bool) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0, false
		}
		return 2, false
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "%s: unexpected argument %q\n", fs.Name(), fs.Arg(0))
		return 2, false
	}
	return 0, true
}
