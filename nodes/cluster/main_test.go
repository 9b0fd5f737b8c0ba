package cluster

import (
	"os"
	"testing"

	"kafkasim/internal/gctune"
)

// TestMain runs this package's tests and benchmarks under the collector
// setting the command line and the scenario harness use (gctune: GOGC=400
// unless GOGC or GOMEMLIMIT is set), so that BenchmarkCluster measures the
// cluster as a sweep runs it. A run keeps its history and logs to the end,
// so its heap only grows, and at Go's default the collector cycles, and
// the memory it hands back and takes again, cost about a quarter of the
// time.
func TestMain(m *testing.M) {
	gctune.Apply()
	os.Exit(m.Run())
}
