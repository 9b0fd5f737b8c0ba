package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// kafkasim check -json carries a dependency cycle's steps and Jepsen's
// key and class for it; the table names every step in the detail.
func TestCheckCommandCycle(t *testing.T) {
	p := filepath.Join("..", "..", "checkers", "testdata", "jepsen", "g1c-pure-wr.edn")
	code, out, errs := runCmd("check", "-history", p, "-json")
	var rep struct {
		Violations []struct {
			Anomaly     string
			Ops         []int
			Jepsen      string
			JepsenClass string `json:"jepsen_class"`
			Txn         *struct {
				Steps []struct {
					Type, Partition, Value string
					From, To               int
				}
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != 1 {
		t.Fatalf("exit %d, err %v\n%s\n%s", code, err, out, errs)
	}
	if len(rep.Violations) != 1 {
		t.Fatalf("want the G1c alone: %s", out)
	}
	v := rep.Violations[0]
	if v.Anomaly != "G1c" || v.Jepsen != "G1c" || v.JepsenClass != "error" || v.Txn == nil || len(v.Txn.Steps) != 2 {
		t.Fatalf("G1c finding: %+v", v)
	}
	for i, s := range v.Txn.Steps {
		if s.Type != "wr" || s.From != v.Ops[i] || s.To != v.Ops[(i+1)%2] {
			t.Fatalf("step %d: %+v of %+v", i, s, v)
		}
	}
	code, out, _ = runCmd("check", "-history", p)
	if code != 1 || !strings.Contains(out, "G1c") || !strings.Contains(out, "(wr)") {
		t.Fatalf("table: exit %d\n%s", code, out)
	}
}
