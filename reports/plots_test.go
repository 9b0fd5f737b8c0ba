package reports

import (
	"path/filepath"
	"testing"
	"time"
)

// A CDF of values that all sit far from zero (acks1-failover's 8-9 s
// windows) starts its axis near them and says so; one whose values start
// near zero keeps the axis at zero.
func TestLatencyAxisStartsAtZeroUnlessEveryValueIsFarFromIt(t *testing.T) {
	s := func(vs ...time.Duration) []cdfSeries { return []cdfSeries{{label: "g", values: vs, total: len(vs)}} }
	dir := t.TempDir()
	far, err := plotCDFs(filepath.Join(dir, "far"), "t", "x", s(8*time.Second, 8500*time.Millisecond, 9*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if far.XFrom < 7.8 || far.XFrom >= 8 {
		t.Errorf("values 8-9 s: the axis starts at %v, want just below 8", far.XFrom)
	}
	f := figureOf("far", "c", far)
	if f.Zoomed() == "" {
		t.Error("the caption does not say the axis starts past zero")
	}
	near, err := plotCDFs(filepath.Join(dir, "near"), "t", "x", s(4*time.Second, 8500*time.Millisecond, 9*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if near.XFrom != 0 || figureOf("near", "c", near).Zoomed() != "" {
		t.Errorf("values 4-9 s: the axis starts at %v, want 0, said nowhere", near.XFrom)
	}
	if lo, hi := xRange([]time.Duration{8 * time.Second, 9 * time.Second}); hi <= 9 || lo >= 8 {
		t.Errorf("xRange(8 s, 9 s) = %v..%v; want room on both sides of the values", lo, hi)
	}
}
