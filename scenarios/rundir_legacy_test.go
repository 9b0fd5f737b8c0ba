package scenarios

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"kafkasim/model"
)

// TestARunDirectoryInTheOlderSpellingStillLoads rewrites a saved run's
// observations as run directories spelt them before the observation types
// moved into model (a high watermark's epoch as "Incarnation", a generation
// member's id as "Member", no coordinator and no coordinator epoch), and reads it back: the same
// observations, the generations without their coordinator.
func TestARunDirectoryInTheOlderSpellingStillLoads(t *testing.T) {
	res, dir := savedRun(t, "leader-failover", 3)
	moved := slices.ContainsFunc(res.Observed.HighWatermarks, func(o model.HWObservation) bool { return o.Epoch > 0 })
	if !moved {
		t.Fatal("leader-failover seed 3 reported no high watermark under a later leader epoch")
	}
	path := filepath.Join(dir, ObservationsFile)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Observed.Generations) == 0 {
		t.Fatal("leader-failover seed 3 completed no generation")
	}
	epoch := regexp.MustCompile(`^(\{"high_watermark":\{.*)"Epoch":`)
	coordinator := regexp.MustCompile(`^(\{"generation":\{.*)"Broker":[^,]*,`)
	coordinatorEpoch := regexp.MustCompile(`^(\{"generation":\{.*)"Epoch":[^,]*,`)
	var old []string
	renamed := 0
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if epoch.MatchString(l) {
			l = epoch.ReplaceAllString(l, `$1"Incarnation":`)
			renamed++
		}
		if strings.HasPrefix(l, `{"generation":`) {
			l = coordinatorEpoch.ReplaceAllString(coordinator.ReplaceAllString(l, "$1"), "$1")
			l = strings.ReplaceAll(l, `"MemberID":`, `"Member":`)
			if strings.Contains(l, `"Broker"`) {
				t.Fatalf("the rewrite left the coordinator: %s", l)
			}
		}
		old = append(old, l)
	}
	text := strings.Join(old, "\n")
	if renamed != len(res.Observed.HighWatermarks) || strings.Contains(text, `"MemberID"`) {
		t.Fatalf("the rewrite missed lines:\n%.300s", text)
	}
	if err := os.WriteFile(path, []byte(text+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := LoadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(s.Input.Observations.HighWatermarks, res.Observed.HighWatermarks) {
		t.Errorf("high watermarks read back differ from the run's")
	}
	want := slices.Clone(res.Observed.Generations)
	for i := range want {
		want[i].Broker, want[i].Epoch = 0, 0
	}
	if !reflect.DeepEqual(s.Input.Observations.Generations, want) {
		t.Errorf("generations read back differ from the run's")
	}
}
