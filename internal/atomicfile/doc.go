// Package atomicfile writes a file so that it is either whole or absent:
// the report writer (reports.WriteFile) and the run directory
// (scenarios.SaveRun) share it, so that the rule for temporary files,
// their names and their removal on failure is written once.
package atomicfile
