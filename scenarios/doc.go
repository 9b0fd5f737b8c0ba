// Package scenarios puts a fault policy and the checkers on a fixture (a
// cluster and its workload, built by package scenarios/fixture) and makes
// named, runnable scenarios of them, and holds the
// `go test ./scenarios -seed N` harness and the property-based tests. A
// run can be saved to a run directory (SaveRun) and judged again from it
// alone (CheckRun).
//
// A scenario run is single-threaded and deterministic; parallelism exists
// only across runs, in the sweep runner. It must never let wall-clock time
// or map order reach a run's behaviour.
package scenarios
