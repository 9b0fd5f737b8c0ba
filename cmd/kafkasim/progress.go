package main

import (
	"fmt"
	"io"

	"github.com/schollz/progressbar/v3"

	"kafkasim/reports"
	"kafkasim/scenarios"
)

// sweepProgress is the sweep's progress bar on a terminal: the scenario
// (and -vary setting) of the run that just finished, runs done of the
// total, how many runs of scenarios that must pass failed so far, and the
// rate in runs per second.
type sweepProgress struct {
	bar    *progressbar.ProgressBar
	failed int
}

func newSweepProgress(w io.Writer, total int) *sweepProgress {
	return &sweepProgress{bar: progressbar.NewOptions(total,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetWidth(10), // the line fits reports.TerminalWidth with a long -vary label
		progressbar.OptionShowCount(),
		progressbar.OptionShowIts(),
		progressbar.OptionSetItsString("runs"),
		progressbar.OptionSetRenderBlankState(true),
		progressbar.OptionClearOnFinish())}
}

// runDone advances the bar by one finished run.
func (p *sweepProgress) runDone(r scenarios.Result) {
	if r.Expected == "" && !r.OK {
		p.failed++
	}
	p.bar.Describe(progressLabel(r, p.failed))
	_ = p.bar.Add(1)
}

// progressLabel is the bar's description: where the sweep is, and the
// failures so far.
func progressLabel(r scenarios.Result, failed int) string {
	return fmt.Sprintf("%s, %d failed", reports.Label(r, true), failed)
}
