package reports

import (
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"kafkasim/faults"
	"kafkasim/model"
	"kafkasim/scenarios"
)

// timelineResult is a crafted run of eleven partitions (six of t, five of
// __consumer_offsets, as the group scenarios have): leaders, ISRs and high
// watermarks over 30 s, a crash of broker 1 from 10 s to 20 s, and the
// metadata quorum's leaders given.
func timelineResult(quorum ...model.BrokerID) scenarios.Result {
	r := scenarios.Result{Scenario: "coordinator-failover", Seed: 3,
		Faults: []scenarios.FaultWindow{{Start: 10 * time.Second, End: 20 * time.Second, Kind: faults.KindCrash, Nodes: []model.BrokerID{1}}}}
	var tps []model.TopicPartition
	for p := range 6 {
		tps = append(tps, model.TP("t", int32(p)))
	}
	for p := range 5 {
		tps = append(tps, model.TP("__consumer_offsets", int32(p)))
	}
	for i, tp := range tps {
		r.Observed.Leaders = append(r.Observed.Leaders,
			model.LeaderObservation{Time: time.Second, TP: tp, Epoch: 1, Leader: 1},
			model.LeaderObservation{Time: 12 * time.Second, TP: tp, Epoch: 2, Leader: model.BrokerID(2 + i%2)})
		r.Observed.ISRs = append(r.Observed.ISRs,
			model.ISRObservation{Time: time.Second, TP: tp, Leader: 1, Epoch: 1, ISR: []model.BrokerID{1, 2, 3}},
			model.ISRObservation{Time: 12 * time.Second, TP: tp, Leader: 2, Epoch: 2, ISR: []model.BrokerID{2, 3}})
		for s := 1; s <= 30; s++ {
			r.Observed.HighWatermarks = append(r.Observed.HighWatermarks,
				model.HWObservation{Time: time.Duration(s) * time.Second, TP: tp, Broker: 1, HW: model.Offset(s * (i + 1))})
		}
	}
	for s := range 30 {
		at := time.Duration(s)*time.Second + 500*time.Millisecond
		r.History = append(r.History, model.Op{Index: s, Type: model.OpOK, F: model.FSend, Time: at, End: at, TP: tps[0]})
	}
	for i, n := range quorum {
		r.Observed.Quorum.Leaders = append(r.Observed.Quorum.Leaders, model.QuorumLeaderObservation{Time: time.Duration(i*10) * time.Second, Node: n, Epoch: model.Epoch(i + 1)})
	}
	return r
}

// svgText are an SVG's text elements: their x and their text.
type svgText struct {
	x    float64
	text string
}

func svgTexts(t *testing.T, svg string) []svgText {
	t.Helper()
	var out []svgText
	for _, m := range regexp.MustCompile(`(?s)<text x="([-0-9.]+)"[^>]*>([^<]*)</text>`).FindAllStringSubmatch(svg, -1) {
		x, err := strconv.ParseFloat(m[1], 64)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, svgText{x, m[2]})
	}
	return out
}

// axesRight is the right end of the panels' axes and ticks: the largest
// x of the black strokes, which are the axes (the curves are coloured).
func axesRight(t *testing.T, svg string) float64 {
	t.Helper()
	right := math.Inf(-1)
	for _, m := range regexp.MustCompile(`<path d="([^"]+)" style="fill:none;stroke:#000000`).FindAllStringSubmatch(svg, -1) {
		for _, xy := range regexp.MustCompile(`[ML]([-0-9.]+),`).FindAllStringSubmatch(m[1], -1) {
			x, _ := strconv.ParseFloat(xy[1], 64)
			right = max(right, x)
		}
	}
	return right
}

func TestTimelineLegendsSitOutsideThePanels(t *testing.T) {
	dir := t.TempDir()
	if _, err := PlotTimeline(filepath.Join(dir, "timeline"), timelineResult()); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "timeline.svg"))
	if err != nil {
		t.Fatal(err)
	}
	svg := string(b)
	right := axesRight(t, svg)
	texts := svgTexts(t, svg)
	legend := map[string]int{}
	for _, tx := range texts {
		if strings.HasPrefix(tx.text, "t/") || strings.HasPrefix(tx.text, "__consumer_offsets/") || tx.text == "fault windows" || tx.text == "acked writes" {
			legend[tx.text]++
			if tx.x <= right {
				t.Errorf("legend entry %q at x=%.1f, inside the panels (their axes end at %.1f)", tx.text, tx.x, right)
			}
		}
	}
	// Eleven partitions in three panels each (leader, ISR, high
	// watermark); the fault windows and the acknowledged writes once.
	for _, want := range []string{"t/0", "t/5", "__consumer_offsets/0", "__consumer_offsets/4"} {
		if legend[want] != 3 {
			t.Errorf("legend entry %q appears %d times, want once in each of 3 panels", want, legend[want])
		}
	}
	if legend["fault windows"] != 1 || legend["acked writes"] != 1 {
		t.Errorf("fault windows %d times, acked writes %d times in the legends; want once each", legend["fault windows"], legend["acked writes"])
	}
	// Axis labels carry their units; the fault is labelled on the plot.
	for _, want := range []string{">virtual time (seconds)<", ">acked writes (per second)<", ">leader (broker id)<", ">ISR size (replicas)<", ">high watermark (offset)<", ">crash b1<"} {
		if !strings.Contains(svg, want) {
			t.Errorf("timeline lacks the text %s", want)
		}
	}
	// Ids and counts are whole numbers: no tick reads 1.5 or 250.00.
	for _, tx := range texts {
		if regexp.MustCompile(`^[0-9]+\.[0-9]+$`).MatchString(tx.text) {
			t.Errorf("a tick reads %q; ids, sizes, offsets and counts are whole", tx.text)
		}
	}
}

// An underscore is a character of the name, drawn as text: gonum's LaTeX
// handler would take "_c" for a subscript.
func TestTimelineDrawsUnderscoresAsText(t *testing.T) {
	dir := t.TempDir()
	if _, err := PlotTimeline(filepath.Join(dir, "timeline"), timelineResult()); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "timeline.svg"))
	if n := strings.Count(string(b), ">__consumer_offsets/3<"); n != 3 {
		t.Errorf("the text __consumer_offsets/3 appears %d times, want 3", n)
	}
}

func TestTimelineQuorumPanelOnlyWhenItsLeaderChanged(t *testing.T) {
	for _, c := range []struct {
		name   string
		quorum []model.BrokerID
		panel  bool
	}{
		{"no quorum", nil, false},
		{"one leader", []model.BrokerID{100}, false},
		{"one leader re-elected", []model.BrokerID{100, 100}, false},
		{"a new leader", []model.BrokerID{100, 101}, true},
	} {
		dir := t.TempDir()
		if _, err := PlotTimeline(filepath.Join(dir, "timeline"), timelineResult(c.quorum...)); err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(filepath.Join(dir, "timeline.svg"))
		if got := strings.Contains(string(b), ">quorum leader (controller id)<"); got != c.panel {
			t.Errorf("%s: quorum panel drawn %v, want %v", c.name, got, c.panel)
		}
	}
}
