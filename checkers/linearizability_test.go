package checkers

import (
	"os"
	"strings"
	"testing"
	"time"

	"kafkasim/model"
)

// A poll returns a record before the send that wrote it was even invoked.
// Every anomaly check passes (the offsets, values and orders all agree);
// only the porcupine model catches it.
func TestNonlinearizableOnlyPorcupine(t *testing.T) {
	early := hist(
		poll(1, 1, 2, recs(t0, 0, "a")),
		sendOK(0, t0, "a", 0, 5, 6),
	)
	r := check(t, Input{History: early}, Options{Idempotent: true})
	if len(r.Violations) != 1 {
		t.Fatalf("want exactly the linearizability violation; got:\n%s", dump(r))
	}
	v := mustFind(t, r, Nonlinearizable, t0, 0, 0)
	if v.Checker != CheckerLinearizability || !v.Error || !strings.Contains(v.Detail, "before op 1") {
		t.Fatalf("nonlinearizable: %+v", v)
	}
	if r.Valid != ValidViolation || r.Linearizability[0].Result != "Illegal" {
		t.Fatalf("verdict: %s", dump(r))
	}
	// The anomaly checks alone pass it.
	if a := CheckAnomalies(early, Options{Idempotent: true}); a.Valid != ValidOK || len(a.Violations) != 0 {
		t.Fatalf("anomaly checks should pass: %s", dump(a))
	}

	// Near-identical: the send was invoked before the poll returned.
	mustPass(t, check(t, Input{History: hist(poll(1, 1, 5, recs(t0, 0, "a")), sendOK(0, t0, "a", 0, 2, 6))}, Options{}))
}

func TestLinearizabilityIndeterminateSend(t *testing.T) {
	// b's send timed out, but a poll read it: it took effect at some
	// point after its call, which may be after the poll of a.
	ok := hist(
		sendOK(0, t0, "a", 0, 0, 1),
		sendInfo(1, t0, "b", 2, 3),
		poll(2, 4, 5, recs(t0, 0, "a", 1, "b")),
	)
	mustPass(t, check(t, Input{History: ok}, Options{}))
	// Same, but the poll returned b before b's send was invoked.
	bad := hist(
		sendOK(0, t0, "a", 0, 0, 1),
		poll(2, 2, 3, recs(t0, 0, "a", 1, "b")),
		sendInfo(1, t0, "b", 4, 5),
	)
	r := check(t, Input{History: bad}, Options{})
	mustFind(t, r, Nonlinearizable, t0, 1, 1)
}

func TestLinearizabilityConcurrentProducers(t *testing.T) {
	// Two producers overlap; their offsets order them; a reader in the
	// middle sees only the first. Linearizable.
	h := hist(
		sendOK(0, t0, "a", 0, 0, 10),
		sendOK(1, t0, "b", 1, 1, 11),
		poll(2, 2, 3, recs(t0, 0, "a")),
		poll(3, 12, 13, recs(t0, 0, "a", 1, "b")),
	)
	mustPass(t, check(t, Input{History: h}, Options{}))
	// b returned (at offset 1) before a (offset 0) was invoked: the log
	// cannot have had length 1 when b took effect.
	h = hist(
		sendOK(1, t0, "b", 1, 0, 1),
		sendOK(0, t0, "a", 0, 2, 3),
		poll(2, 4, 5, recs(t0, 0, "a", 1, "b")),
	)
	r := check(t, Input{History: h}, Options{})
	v := mustFind(t, r, Nonlinearizable, t0, 0, 1)
	if !strings.Contains(v.Detail, "send op 0") {
		t.Fatalf("witness: %s", v.Detail)
	}
}

func TestLinearizabilityVisualization(t *testing.T) {
	dir := t.TempDir()
	h := hist(poll(1, 1, 2, recs(t0, 0, "a")), sendOK(0, t0, "a", 0, 5, 6))
	r := check(t, Input{History: h}, Options{OutDir: dir})
	pc := r.Linearizability[0]
	if pc.Visualization == "" {
		t.Fatalf("no visualization: %s", dump(r))
	}
	b, err := os.ReadFile(pc.Visualization)
	if err != nil || !strings.Contains(string(b), "<html") {
		t.Fatalf("visualization %s: %v", pc.Visualization, err)
	}
}

// An exhausted budget is Unknown, never a pass.
func TestLinearizabilityUnknown(t *testing.T) {
	// A clock on which every reading is a second after the last: the
	// budget is gone before porcupine starts, whatever the machine.
	base := time.Unix(0, 0)
	clock = func() time.Time { base = base.Add(time.Second); return base }
	defer func() { clock = time.Now }()
	h := hist(sendOK(0, t0, "a", 0, 0, 1), poll(1, 2, 3, recs(t0, 0, "a")))
	r := Check(Input{History: h}, Options{LinearizabilityBudget: time.Millisecond})
	if r.Valid != ValidUnknown || len(r.Notes) == 0 || r.Linearizability[0].Result != "Unknown" {
		t.Fatalf("want unknown: %s", dump(r))
	}
	// A violation outranks unknown.
	h = hist(sendFail(0, t0, "a", 0, 1), poll(1, 2, 3, recs(t0, 0, "a")))
	if r := Check(Input{History: h}, Options{LinearizabilityBudget: time.Millisecond}); r.Valid != ValidViolation {
		t.Fatalf("want violation: %s", dump(r))
	}
}

func TestCheckRejectsInvalidHistory(t *testing.T) {
	h := model.History{{Index: 3, Type: model.OpOK, F: model.FPoll}}
	r := Check(Input{History: h}, Options{})
	if r.Valid != ValidUnknown || len(r.Notes) != 1 {
		t.Fatalf("invalid history: %s", dump(r))
	}
}
