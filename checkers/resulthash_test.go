package checkers

import (
	"crypto/sha256"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kafkasim/model"
)

// resultHashes names a file to write the result hashes to. A change meant
// to make the checkers faster without changing what they find is checked
// by writing the hashes before and after it and comparing the two files:
//
//	go test ./checkers -run TestResultHashes -checkers.resulthashes before.txt
var resultHashes = flag.String("checkers.resulthashes", "", "write the SHA-256 of the full JSON results of the benchmark histories and of testdata/jepsen to this file")

// TestResultHashes hashes the full JSON of the results of the benchmarks'
// histories (plain 1M, transactional 1M and 100k) and of every history in
// testdata/jepsen, each judged with and without idempotence, and of two
// small histories with porcupine too. It runs only
// when -checkers.resulthashes is given: the 1M histories take seconds.
func TestResultHashes(t *testing.T) {
	if *resultHashes == "" {
		t.Skip("no -checkers.resulthashes file")
	}
	type named struct {
		name string
		h    model.History
	}
	hs := []named{
		{"plain-1M", genHistory(1_000_000, 10, 1)},
		{"txn-1M", genTxnHistory(1_000_000, 10, 4)},
		{"txn-100k", genTxnHistory(100_000, 10, 3)},
	}
	files, err := filepath.Glob(filepath.Join("testdata", "jepsen", "*.edn"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no jepsen histories: %v", err)
	}
	for _, f := range files {
		hs = append(hs, named{filepath.Base(f), jepsenFile(t, filepath.Base(f))})
	}
	var out strings.Builder
	for _, n := range hs {
		for _, idem := range []bool{true, false} {
			r := CheckAnomalies(n.h, Options{Idempotent: idem})
			js, err := json.Marshal(r)
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&out, "%s idempotent=%v violations=%d %x\n", n.name, idem, len(r.Violations), sha256.Sum256(js))
		}
	}
	// Porcupine reads the shared index too: judge two small histories with
	// it on.
	for _, n := range []named{{"plain-20k", genHistory(20_000, 10, 1)}, {"txn-20k", genTxnHistory(20_000, 10, 1)}} {
		r := Check(Input{History: n.h}, Options{Idempotent: true, LinearizabilityBudget: time.Minute, LinearizabilityWork: -1})
		js, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&out, "%s porcupine violations=%d %x\n", n.name, len(r.Violations), sha256.Sum256(js))
	}
	if err := os.WriteFile(*resultHashes, []byte(out.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}
