package reports

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"kafkasim/faults"
	"kafkasim/model"
	"kafkasim/scenarios"
)

// quorumResults are crafted results of two configurations: controller
// failovers of 1.1s..1.5s (and one never recommitted) under one, 3.1s..3.5s
// under the other, each beside one partition failover.
func quorumResults() []scenarios.Result {
	var out []scenarios.Result
	for _, c := range []struct {
		vary string
		base time.Duration
	}{{"controller.quorum.election.timeout.ms=1000", time.Second}, {"controller.quorum.election.timeout.ms=3000", 3 * time.Second}} {
		for seed := uint64(1); seed <= 5; seed++ {
			d := c.base + time.Duration(seed)*100*time.Millisecond
			r := scenarios.Result{Scenario: "controller-failover", Seed: seed, OK: true, AsExpected: true, Valid: "ok", Vary: c.vary,
				Failovers: []scenarios.Failover{{TP: model.TP("t", 0), Cause: faults.KindCrash, At: 10 * time.Second, OldLeader: 1, NewLeader: 2,
					Election: 6 * time.Second, FirstAck: 6500 * time.Millisecond, Unavailable: 7 * time.Second, ConsumerGap: 7 * time.Second}},
				ControllerFailovers: []scenarios.ControllerFailover{{Cause: faults.KindCrash, Fault: "from 10s to 15s crash controller", At: 10 * time.Second,
					OldLeader: 100, OldEpoch: 1, OldHW: 40, NewLeader: 101, NewEpoch: 2, Election: d - 50*time.Millisecond, FirstCommit: d}},
			}
			if seed == 5 {
				r.ControllerFailovers = append(r.ControllerFailovers, scenarios.ControllerFailover{Cause: faults.KindPause, At: 20 * time.Second,
					OldLeader: 101, OldEpoch: 2, NewLeader: model.NoBroker, Election: scenarios.Unmeasured, FirstCommit: scenarios.Unmeasured})
			}
			out = append(out, r)
		}
	}
	return out
}

func TestControllerQuantilesOverSeeds(t *testing.T) {
	groups := Groups(quorumResults())
	q := ControllerQuantilesOf(groups[0], ControllerFirstCommit)
	if q.N != 5 || q.P50 != 1300*time.Millisecond || q.Max != 1500*time.Millisecond {
		t.Fatalf("quantiles %+v", q)
	}
	tb := FailoverComparisonTable(groups)
	if len(tb.Rows) != 2 {
		t.Fatalf("rows %v", tb.Rows)
	}
	row := strings.Join(tb.Rows[1], " | ")
	// 5 runs, 5 partition failovers (election 6s), 6 controller failovers,
	// controller failover p50 3.3s and max 3.5s, one never recommitted.
	for _, want := range []string{"controller.quorum.election.timeout.ms=3000 | 5 | 5 | 6.000s", "| 6 | 3.250s", "3.300s", "3.500s | 1"} {
		if !strings.Contains(row, want) {
			t.Errorf("row %q lacks %q", row, want)
		}
	}
	run := ControllerFailoverTable(quorumResults()[4])
	if len(run.Rows) != 2 || run.Rows[0][2] != "b100" || run.Rows[0][8] != "1.500s" || run.Rows[1][5] != "none" || run.Rows[1][6] != "-" || run.Rows[1][8] != "-" {
		t.Fatalf("run table %v", run.Rows)
	}
}

func TestSweepReportPutsControllerFailoverBesidePartitionFailover(t *testing.T) {
	dir := t.TempDir()
	if err := WriteSweep(dir, quorumResults(), SweepOptions{Command: "kafkasim sweep -vary x"}); err != nil {
		t.Fatal(err)
	}
	md, _ := os.ReadFile(filepath.Join(dir, "summary.md"))
	for _, want := range []string{"## Controller failover", "controller failover p50", "| controller.quorum.election.timeout.ms=1000 | 5 | 5 |", "cdf-controller-failover.png"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("summary.md lacks %q:\n%s", want, md)
		}
	}
	// The legend sits outside the plot, in the page, with counts.
	html, _ := os.ReadFile(filepath.Join(dir, "index.html"))
	// Seed 5's second controller failover never saw a new leader: the
	// legend says so rather than disagree with the table's 6, and says
	// why once under the legend.
	for _, want := range []string{"=1000: controller failover (n=5 of 6 failovers)", "=3000: partition leader election (n=5)", "the rest were unmeasured"} {
		if !strings.Contains(string(html), want) {
			t.Errorf("the comparison CDF's legend lacks series %q", want)
		}
	}
	if !strings.Contains(string(html), "<h2>Controller failover</h2>") || !strings.Contains(string(html), `src="cdf-controller-failover.png"`) {
		t.Error("index.html lacks the controller section")
	}
	for _, l := range regexp.MustCompile(`(?:href|src)="([^"]+)"`).FindAllStringSubmatch(string(html), -1) {
		if l[1] != "results.jsonl" && !strings.HasPrefix(l[1], "#") && !strings.HasPrefix(l[1], "data:") {
			if _, err := os.Stat(filepath.Join(dir, l[1])); err != nil {
				t.Errorf("index.html links %q, which does not exist", l[1])
			}
		}
	}
	// Results without a controller failover (single-controller or broker
	// scenarios) get no controller section.
	plain := quorumResults()
	for i := range plain {
		plain[i].ControllerFailovers = nil
	}
	dir2 := t.TempDir()
	if err := WriteSweep(dir2, plain, SweepOptions{}); err != nil {
		t.Fatal(err)
	}
	md, _ = os.ReadFile(filepath.Join(dir2, "summary.md"))
	if strings.Contains(string(md), "Controller failover") {
		t.Error("a sweep without controller failovers shows a controller section")
	}
	if _, err := os.Stat(filepath.Join(dir2, "cdf-controller-failover.svg")); err == nil {
		t.Error("a sweep without controller failovers drew their CDF")
	}
}

func TestChromeTraceShowsTheQuorum(t *testing.T) {
	res := quorumResults()[4]
	res.Observed.Quorum = model.QuorumObservations{
		Voters: []model.BrokerID{100, 101, 102},
		Leaders: []model.QuorumLeaderObservation{
			{Time: time.Second, Node: 100, Incarnation: 1, Epoch: 1},
			{Time: 11 * time.Second, Node: 101, Incarnation: 1, Epoch: 2},
		},
		HighWatermarks: []model.QuorumHWObservation{
			{Time: 2 * time.Second, Node: 100, Incarnation: 1, Epoch: 1, HW: 40},
			{Time: 2 * time.Second, Node: 102, Incarnation: 1, Epoch: 1, HW: 39}, // lags: not drawn
			{Time: 12 * time.Second, Node: 101, Incarnation: 1, Epoch: 2, HW: 41},
		},
	}
	tr := ChromeTrace(res)
	count := map[string]int{}
	tracks := map[int]string{}
	for _, e := range tr.TraceEvents {
		count[e.Cat+"/"+e.Ph+"/"+e.Name]++
		if e.Ph == "M" && e.Name == "thread_name" {
			tracks[e.Tid] = e.Args["name"].(string)
		}
		if e.Cat == "controller-failover" && e.Ph == "X" && (e.Ts != 10e6 || *e.Dur != 1.5e6) {
			t.Errorf("controller failover slice at %v for %v, want 10s for 1.5s", e.Ts, *e.Dur)
		}
	}
	for want, n := range map[string]int{
		"quorum/i/quorum leader epoch 1": 1, "quorum/i/quorum leader epoch 2": 1, "quorum/C/metadata hw": 2,
		"controller-failover/X/controller failover": 1, "controller-failover/i/controller failover": 1,
	} {
		if count[want] != n {
			t.Errorf("%d %s events, want %d (have %v)", count[want], want, n, count)
		}
	}
	for tid, name := range map[int]string{-1: "controller failovers", 100: "b100", 101: "b101"} {
		if tracks[tid] != name {
			t.Errorf("track %d is %q, want %q", tid, tracks[tid], name)
		}
	}
}

func TestTimelineDrawsTheQuorumLeader(t *testing.T) {
	res := quorumResults()[0]
	dir := t.TempDir()
	if _, err := PlotTimeline(filepath.Join(dir, "plain"), res); err != nil {
		t.Fatal(err)
	}
	res.Observed.Quorum.Leaders = []model.QuorumLeaderObservation{{Time: time.Second, Node: 100, Epoch: 1}, {Time: 11 * time.Second, Node: 101, Epoch: 2}}
	if _, err := PlotTimeline(filepath.Join(dir, "quorum"), res); err != nil {
		t.Fatal(err)
	}
	plain, _ := os.ReadFile(filepath.Join(dir, "plain.svg"))
	quorum, _ := os.ReadFile(filepath.Join(dir, "quorum.svg"))
	if strings.Contains(string(plain), "quorum leader") || !strings.Contains(string(quorum), "quorum leader (controller id)") {
		t.Error("the quorum panel should be drawn exactly when the run had a quorum")
	}
}
