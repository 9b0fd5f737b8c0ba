package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"testing"
)

// TestKafkaVersionDecidesWhetherTheISROfOneLosesData runs the command
// docs/versions.md shows: the ISR shrinks to the leader, which loses its
// unflushed tail in a power loss. Every release before 4.1 (no ELR by
// default) re-elects it and loses the acknowledged writes; 4.1 elects an
// eligible leader replica and loses none. 3.6, without the high-watermark
// freeze, also let consumers read a write the producer was told had
// failed, which its retry then wrote a second time.
func TestKafkaVersionDecidesWhetherTheISROfOneLosesData(t *testing.T) {
	type want struct {
		ok              bool
		lost, duplicate int
	}
	for _, tc := range []struct {
		version string
		want    want
	}{
		{"3.6", want{ok: false, lost: 249, duplicate: 5}},
		{"4.0", want{ok: false, lost: 249, duplicate: 0}},
		{"4.1", want{ok: true}},
	} {
		var out, errb bytes.Buffer
		args := []string{"run", "-f", filepath.Join("..", "..", "docs", "versions", "isr-of-one.toml"), "-seed", "13",
			"-schedule", filepath.Join("..", "..", "docs", "versions", "isr-of-one-power-loss.schedule"),
			"-set", "kafka.version=" + tc.version, "-set", "replica.lag.time.max.ms=10s",
			"-json", "-out", filepath.Join(t.TempDir(), "run")}
		code := dispatch(args, &out, &errb)
		var res struct {
			OK         bool `json:"ok"`
			Violations []struct {
				Anomaly string `json:"anomaly"`
			} `json:"violations"`
		}
		if err := json.Unmarshal(out.Bytes(), &res); err != nil {
			t.Fatalf("%s: exit %d, %v\nstderr %s", tc.version, code, err, errb.String())
		}
		got := want{ok: res.OK}
		for _, v := range res.Violations {
			switch v.Anomaly {
			case "acked-write-lost":
				got.lost++
			case "duplicate":
				got.duplicate++
			}
		}
		if got != tc.want {
			t.Errorf("kafka.version=%s: ok %v, %d acknowledged writes lost, %d duplicates; want %+v", tc.version, got.ok, got.lost, got.duplicate, tc.want)
		}
		if wantCode := map[bool]int{true: 0, false: 1}[tc.want.ok]; code != wantCode {
			t.Errorf("kafka.version=%s: exit %d, want %d", tc.version, code, wantCode)
		}
	}
}
