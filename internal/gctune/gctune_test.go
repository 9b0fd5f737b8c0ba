package gctune

import (
	"math"
	"runtime/debug"
	"testing"
)

// restore puts back the collector settings a test changed.
func restore(t *testing.T) {
	percent := debug.SetGCPercent(100)
	limit := debug.SetMemoryLimit(-1)
	t.Cleanup(func() {
		debug.SetGCPercent(percent)
		debug.SetMemoryLimit(limit)
	})
}

func env(vars map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := vars[k]; return v, ok }
}

func TestApplySetsPercentAndLimitWhenUnset(t *testing.T) {
	restore(t)
	s := apply(env(nil), func() int64 { return 8 << 30 })
	if s.Percent != Percent || s.FromEnv || s.Limit != 4<<30 {
		t.Fatalf("settings %+v, want percent %d and a 4 GiB limit", s, Percent)
	}
	if got := debug.SetGCPercent(100); got != Percent {
		t.Fatalf("GC percent in force %d, want %d", got, Percent)
	}
	if got := debug.SetMemoryLimit(-1); got != 4<<30 {
		t.Fatalf("memory limit in force %d, want %d", got, int64(4<<30))
	}
}

func TestApplyLeavesWhatTheUserSet(t *testing.T) {
	restore(t)
	debug.SetGCPercent(150) // as the runtime does for GOGC=150
	s := apply(env(map[string]string{"GOGC": "150", "GOMEMLIMIT": "1GiB"}), func() int64 { return 8 << 30 })
	if s.Percent != 150 || !s.FromEnv || s.Limit != 0 {
		t.Fatalf("settings %+v, want the user's 150 and no limit of ours", s)
	}
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 {
		t.Fatalf("memory limit changed to %d", got)
	}
}

func TestApplyWithoutMemoryInfoSetsNoLimit(t *testing.T) {
	restore(t)
	if s := apply(env(nil), func() int64 { return 0 }); s.Limit != 0 || s.Percent != Percent {
		t.Fatalf("settings %+v, want percent %d and no limit", s, Percent)
	}
}

func TestParseMemTotal(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
	}{
		{"MemTotal:       24683520 kB\nMemFree: 1 kB\n", 24683520 << 10},
		{"MemFree: 1 kB\n", 0},
		{"MemTotal: lots kB\n", 0},
		{"MemTotal: 5 MB\n", 0},
		{"", 0},
	} {
		if got := parseMemTotal([]byte(c.in)); got != c.want {
			t.Errorf("parseMemTotal(%q) = %d, want %d", c.in, got, c.want)
		}
	}
}
