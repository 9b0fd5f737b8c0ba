//go:build unix

package checkers

import (
	"syscall"
	"testing"
	"time"
)

// cpuClock reads the process's CPU time (user and system), which a
// benchmark reports beside the wall clock: on a shared machine the wall
// clock also counts the time other processes held the cores.
func cpuClock() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU reports the CPU seconds each iteration took since start.
func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric((cpuClock()-start).Seconds()/float64(b.N), "cpu-s/op")
}
