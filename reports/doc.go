// Package reports turns run and sweep results into tables, plots, timelines
// and HTML or Markdown reports.
//
// It only reads results; it must never run a simulation or change a result.
package reports
