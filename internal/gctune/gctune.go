package gctune

import (
	"bufio"
	"bytes"
	"os"
	"runtime/debug"
	"strconv"
)

// Percent is the GOGC kafkasim runs with unless GOGC is set: the heap may
// grow to five times what is live before a collection. Measured on the
// chaos scenario sweep (2 cores): 300 seeds/min at 100, 400 at 200, 500 at
// 400, and little more beyond, while peak memory keeps growing.
const Percent = 400

// Settings is what Apply did.
type Settings struct {
	// Percent is the GC percentage now in force (-1: collection is off).
	Percent int
	// Limit is the soft memory limit set, in bytes, or 0 when Apply left
	// the limit alone.
	Limit int64
	// FromEnv says GOGC was set in the environment, so the percentage is
	// the user's.
	FromEnv bool
}

// Apply sets the GC percentage to Percent unless GOGC is set, and, unless
// GOMEMLIMIT is set, a soft memory limit of half the machine's memory
// (when it can be read), so that the larger heap goal cannot carry a long
// campaign's process into swap: near the limit the collector runs more
// often instead. It returns what is now in force.
func Apply() Settings {
	return apply(os.LookupEnv, readMemTotal)
}

// apply is Apply with the environment and the machine's memory given, so
// that tests can vary them.
func apply(lookup func(string) (string, bool), memTotal func() int64) Settings {
	var s Settings
	if v, ok := lookup("GOGC"); ok && v != "" {
		s.FromEnv = true
		s.Percent = debug.SetGCPercent(-1)
		debug.SetGCPercent(s.Percent)
	} else {
		debug.SetGCPercent(Percent)
		s.Percent = Percent
	}
	if v, ok := lookup("GOMEMLIMIT"); !ok || v == "" {
		if total := memTotal(); total > 0 {
			s.Limit = total / 2
			debug.SetMemoryLimit(s.Limit)
		}
	}
	return s
}

// readMemTotal returns the machine's memory in bytes from /proc/meminfo,
// or 0 where that cannot be read (another operating system).
func readMemTotal() int64 {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	return parseMemTotal(b)
}

// parseMemTotal reads the "MemTotal: N kB" line of /proc/meminfo.
func parseMemTotal(b []byte) int64 {
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := bytes.Fields(sc.Bytes())
		if len(f) == 3 && string(f[0]) == "MemTotal:" && string(f[2]) == "kB" {
			kb, err := strconv.ParseInt(string(f[1]), 10, 64)
			if err != nil || kb <= 0 {
				return 0
			}
			return kb << 10
		}
	}
	return 0
}
