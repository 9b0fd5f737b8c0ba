package checkers

import (
	"os"
	"slices"
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

// The work budget decides alone when a search stops: a linearizable
// history needs the same work every time, passes with exactly that much,
// and is Unknown, stopped by the work budget, with one unit less.
func TestLinearizabilityWorkBudget(t *testing.T) {
	h := genHistory(3000, 1, 7)
	free := Check(Input{History: h}, Options{Idempotent: true, LinearizabilityWork: -1})
	pc := free.Linearizability[0]
	if pc.Result != "Ok" || pc.Work == 0 || pc.Stopped != "" {
		t.Fatalf("unbounded search: %+v", pc)
	}
	again := Check(Input{History: h}, Options{Idempotent: true, LinearizabilityWork: pc.Work})
	if got := again.Linearizability[0]; got.Result != "Ok" || got.Work != pc.Work {
		t.Fatalf("with a budget of exactly %d: %+v", pc.Work, got)
	}
	short := Check(Input{History: h}, Options{Idempotent: true, LinearizabilityWork: pc.Work - 1})
	got := short.Linearizability[0]
	if got.Result != "Unknown" || got.Stopped != string(stoppedByWork) || got.Work > pc.Work-1 || short.Valid != ValidUnknown {
		t.Fatalf("with a budget of %d: %+v, %s", pc.Work-1, got, dump(short))
	}
	if !slices.ContainsFunc(short.Notes, func(n string) bool { return strings.Contains(n, "work budget of") }) {
		t.Fatalf("no note names the work budget: %q", short.Notes)
	}
}

// A non-linearizable history is found so under a budget that covers its
// search, and cut short (Unknown, never a pass and never a finding) under
// one that does not.
func TestLinearizabilityWorkBudgetIllegal(t *testing.T) {
	h := illegalHistory()
	free := Check(Input{History: h}, Options{Idempotent: true, LinearizabilityWork: -1})
	pc := free.Linearizability[0]
	if pc.Result != "Illegal" || len(find(free, Nonlinearizable)) != 1 {
		t.Fatalf("unbounded search: %s", dump(free))
	}
	cover := pc.Work + 1 + int64(pc.Ops)/64 + 1 // room for the last step priced as accepted
	if r := Check(Input{History: h}, Options{Idempotent: true, LinearizabilityWork: cover}); r.Linearizability[0].Result != "Illegal" {
		t.Fatalf("with a budget of %d: %s", cover, dump(r))
	}
	r := Check(Input{History: h}, Options{Idempotent: true, LinearizabilityWork: pc.Work / 2})
	if got := r.Linearizability[0]; got.Result != "Unknown" || got.Stopped != string(stoppedByWork) || len(find(r, Nonlinearizable)) != 0 {
		t.Fatalf("with a budget of %d: %s", pc.Work/2, dump(r))
	}
}

// illegalHistory is a linearizable history of one partition with one poll
// appended that returned a record before the send that wrote it was
// invoked: porcupine must search the whole history to find no order.
func illegalHistory() model.History {
	h := genHistory(3000, 1, 7)
	var sent model.Op
	for i := len(h) - 1; i >= 0; i-- {
		if h[i].F == model.FSend {
			sent = h[i]
			break
		}
	}
	bad := model.Op{Index: len(h), Process: 99, Type: model.OpOK, F: model.FPoll, Time: 0, End: sent.Time - 1,
		Offset: model.NoOffset, Records: []model.PartitionRecords{{TP: sent.TP, Records: []model.OffsetValue{{Offset: sent.Offset, Value: sent.Value}}}}}
	// Ops are in invocation order: the poll, invoked at 0, goes first.
	out := append(model.History{bad}, h...)
	for i := range out {
		out[i].Index = i
	}
	return out
}

// The verdict does not depend on how fast the machine is: with clocks
// that run a thousand and a million times slower than the search (each
// reading a millisecond or a second after the last), a linearizable and a
// non-linearizable history get the verdicts and spend the work they do on
// the real clock, as long as the wall-clock cap is not met. When it is,
// the verdict is Unknown and says that the cap, not the work budget,
// stopped it.
func TestLinearizabilityVerdictIgnoresClock(t *testing.T) {
	defer func() { clock = time.Now }()
	for _, c := range []struct {
		name string
		h    model.History
	}{{"linearizable", genHistory(2*clockEvery, 1, 7)}, {"not linearizable", illegalHistory()}} {
		clock = time.Now
		want := Check(Input{History: c.h}, Options{Idempotent: true}).Linearizability[0]
		if want.Result == "Unknown" {
			t.Fatalf("%s: unknown on the real clock: %+v", c.name, want)
		}
		for _, tick := range []time.Duration{time.Millisecond, time.Second} {
			base := time.Unix(0, 0)
			clock = func() time.Time { base = base.Add(tick); return base }
			got := Check(Input{History: c.h}, Options{Idempotent: true, LinearizabilityBudget: 1000 * time.Hour}).Linearizability[0]
			if got != want {
				t.Errorf("%s, a clock of %v a reading: %+v, want %+v", c.name, tick, got, want)
			}
		}
		// A clock so slow that a cap of 1.5 s runs out mid-search: the
		// search begins a second after the check did, and the clock is
		// next read every clockEvery steps.
		base := time.Unix(0, 0)
		clock = func() time.Time { base = base.Add(time.Second); return base }
		r := Check(Input{History: c.h}, Options{Idempotent: true, LinearizabilityBudget: 1500 * time.Millisecond})
		got := r.Linearizability[0]
		if got.Result != "Unknown" || got.Stopped != string(stoppedByClock) || len(find(r, Nonlinearizable)) != 0 {
			t.Errorf("%s, past the cap: %+v", c.name, got)
		}
		if !slices.ContainsFunc(r.Notes, func(n string) bool { return strings.Contains(n, "wall-clock cap ran out") }) {
			t.Errorf("%s: no note names the wall-clock cap: %q", c.name, r.Notes)
		}
	}
}

// A search cut short leaves the run unknown only where the configuration
// promised a linearizable log: where it promised none (acks=1), or where
// every ISR and ELR replica of the partition lost its disk, a finding
// would be allowed, so the cut hides no error and the run is ok, with a
// note. The same cut on a promised partition, or on another partition
// than the one that lost its disk, is still unknown.
func TestLinearizabilityUnknownWherePromisedOnly(t *testing.T) {
	h := illegalHistory()
	free := Check(Input{History: h}, Options{Idempotent: true, LinearizabilityWork: -1})
	tp := free.Linearizability[0].TP
	half := free.Linearizability[0].Work / 2
	cut := func(in Input, o Options) Result {
		o.Idempotent, o.LinearizabilityWork = true, half
		r := Check(in, o)
		if got := r.Linearizability[0]; got.Result != "Unknown" {
			t.Fatalf("the search was not cut short: %s", dump(r))
		}
		return r
	}
	if r := cut(Input{History: h}, Options{}); r.Valid != ValidUnknown {
		t.Fatalf("promised partition: want unknown, %s", dump(r))
	}
	other := model.TopicPartition{Topic: tp.Topic + "-other", Partition: tp.Partition}
	if r := cut(Input{History: h, DiskLost: []model.TopicPartition{other}}, Options{}); r.Valid != ValidUnknown {
		t.Fatalf("another partition lost its disk: want unknown, %s", dump(r))
	}
	for name, c := range map[string]struct {
		in   Input
		o    Options
		want string
	}{
		"acks=1":    {Input{History: h}, Options{Acks: "1"}, "acks=1"},
		"disk lost": {Input{History: h, DiskLost: []model.TopicPartition{tp}}, Options{}, PromiseDiskLost},
	} {
		r := cut(c.in, c.o)
		if r.Valid != ValidOK || r.Linearizability[0].Unpromised != c.want {
			t.Errorf("%s: want ok with the check unpromised by %q: %s", name, c.want, dump(r))
		}
		if !slices.ContainsFunc(r.Notes, func(n string) bool { return strings.Contains(n, "leaves the verdict as it is") }) {
			t.Errorf("%s: no note says why the unknown does not count: %q", name, r.Notes)
		}
	}
}
