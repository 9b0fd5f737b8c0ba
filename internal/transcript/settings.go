package transcript

import (
	"slices"
	"testing"

	"github.com/cockroachdb/datadriven"

	"kafkasim/model"
)

// Settings applies the KEY=VALUE arguments of a start command to kc by
// Kafka's names (model.Config.SetPair), all but the keys the world reads
// itself (own).
func Settings(t *testing.T, td *datadriven.TestData, kc *model.Config, own ...string) {
	t.Helper()
	for _, a := range td.CmdArgs {
		if slices.Contains(own, a.Key) {
			continue
		}
		if err := kc.SetPair(a.String()); err != nil {
			t.Fatalf("%s: %v", td.Pos, err)
		}
	}
}
