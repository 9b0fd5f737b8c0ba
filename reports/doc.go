// Package reports turns run and sweep results into tables, plots, timelines
// and HTML or Markdown reports, so that a sweep's numbers (how long a
// partition is unavailable when its leader dies, over thousands of seeds)
// can be read and compared at a glance.
//
// Files: stats.go (groups, metrics, quantiles), tables.go (terminal and
// Markdown tables), plots.go (failover CDFs and histograms), palette.go
// (series colours), timeline.go (one run over time), chrometrace.go (one
// run as a Chrome trace for Perfetto), run.go (a run's pictures),
// runpage.go (a run directory's index.html), runrows.go (a sweep's
// per-run rows), sweep.go and html.go (a sweep's summary.md and
// index.html), files.go (atomic writes).
//
// It only reads results; it must never run a simulation or change a
// result. Its output depends only on its input (map keys sorted, groups in
// order of first appearance, no wall clock), so the same results give the
// same report.
package reports
