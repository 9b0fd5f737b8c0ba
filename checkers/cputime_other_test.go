//go:build !unix

package checkers

import (
	"testing"
	"time"
)

// cpuClock is unavailable here; benchmarks report the wall clock only.
func cpuClock() time.Duration { return 0 }

func reportCPU(*testing.B, time.Duration) {}
