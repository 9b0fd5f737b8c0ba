package reports

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"kafkasim/model"
	"kafkasim/scenarios"
)

// faultShade is the colour of fault windows on a timeline.
var faultShade = color.NRGBA{R: 220, G: 60, B: 60, A: 45}

// PlotTimeline draws one run over virtual time in four aligned panels:
// acknowledged writes per second; the leader of each partition (as the
// brokers reported taking leadership); each partition's ISR size (as its
// leaders applied it); and each partition's high watermark (as its leaders
// reported it); and, when the run had a metadata quorum, its leader (the
// active controller) as each new epoch's winner reported it. Fault windows
// are shaded in every panel. It writes base.png and base.svg.
func PlotTimeline(base string, res scenarios.Result) ([]string, error) {
	end := runEnd(res)
	panels, top, err := timelinePanels(res, end)
	if err != nil {
		return nil, err
	}
	acks := panels[0]
	for i, p := range panels {
		p.X.Min, p.X.Max = 0, end.Seconds()
		// The fault windows' legend entry is said once, in the first
		// panel; the others shade the same windows.
		if err := shadeFaults(p, res.Faults, i == 0); err != nil {
			return nil, err
		}
	}
	if err := labelFaults(acks, res.Faults, top); err != nil {
		return nil, err
	}
	panels[len(panels)-1].X.Label.Text = "virtual time (seconds)"
	return saveTimeline(base, panels)
}

// timelinePanels are the timeline's panels, the acknowledged writes'
// first (titled, with room above for the fault labels, the data's top
// being top), and the quorum's last when its leader changed.
func timelinePanels(res scenarios.Result, end time.Duration) (panels []*plot.Plot, top float64, err error) {
	acks, err := acksPanel(res, end)
	if err != nil {
		return nil, 0, err
	}
	leaders, err := leadersPanel(res, end)
	if err != nil {
		return nil, 0, err
	}
	isrs, err := isrPanel(res, end)
	if err != nil {
		return nil, 0, err
	}
	hws, err := hwPanel(res, end)
	if err != nil {
		return nil, 0, err
	}
	acks.Title.Text = fmt.Sprintf("%s seed %d: fault windows shaded", res.Scenario, res.Seed)
	if len(partitionsOf(res)) > 1 {
		acks.Title.Text += "; equal values drawn slightly apart"
	}
	// Room above the data for the fault labels, which are added after
	// the shading so that no band is drawn over a label.
	top = max(acks.Y.Max, 1)
	if len(res.Faults) > 0 {
		acks.Y.Max = top * 1.45
	}
	panels = []*plot.Plot{acks, leaders, isrs, hws}
	if quorumLeaderChanged(res) {
		q, err := quorumPanel(res, end)
		if err != nil {
			return nil, 0, err
		}
		panels = append(panels, q)
	}
	return panels, top, nil
}

// saveTimeline draws the panels one above the other into base.png and
// base.svg. Each panel's legend is drawn in a strip right of the panels,
// where it covers no curve however many partitions there are; the strip
// is as wide as the widest legend, and a panel as tall as its legend
// needs.
func saveTimeline(base string, panels []*plot.Plot) ([]string, error) {
	legends := make([]*plot.Legend, len(panels))
	var legendWidth, legendHeight vg.Length
	for i, p := range panels {
		legends[i] = &p.Legend
		r := p.Legend.Rectangle(draw.Canvas{})
		legendWidth, legendHeight = max(legendWidth, r.Size().X), max(legendHeight, r.Size().Y)
	}
	strip := legendWidth + timelineLegendGap
	panelHeight := max(timelinePanelHeight, legendHeight+timelinePanelHeight/4)
	w, h := timelineWidth+strip, vg.Length(len(panels))*panelHeight
	return saveCanvas(base, w, h, func(dc draw.Canvas) {
		tiles := draw.Tiles{Rows: len(panels), Cols: 1, PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 2, PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 2, PadY: vg.Millimeter * 4}
		rows := make([][]*plot.Plot, len(panels))
		for i, p := range panels {
			rows[i] = []*plot.Plot{p}
		}
		canvases := plot.Align(rows, tiles, draw.Crop(dc, 0, -strip, 0, 0))
		for i, p := range panels {
			legend := *legends[i]
			p.Legend = plot.NewLegend() // drawn outside, below
			p.Draw(canvases[i][0])
			p.Legend = legend
			data := p.DataCanvas(canvases[i][0])
			lc := data
			lc.Min.X, lc.Max.X = dc.Max.X-strip+timelineLegendGap, dc.Max.X
			legend.Top, legend.Left = true, true
			legend.Draw(lc)
		}
	})
}

// Timeline sizes: the panels' width and least height, and the gap
// between the panels and the legend strip.
const (
	timelineWidth       = 8 * vg.Inch
	timelinePanelHeight = 11 * vg.Inch / 4
	timelineLegendGap   = 4 * vg.Millimeter
)

// runEnd is the last moment anything in the run was observed.
func runEnd(res scenarios.Result) time.Duration {
	var end time.Duration
	for _, op := range res.History {
		end = max(end, op.Time, op.End)
	}
	for _, o := range res.Observed.Leaders {
		end = max(end, o.Time)
	}
	for _, o := range res.Observed.HighWatermarks {
		end = max(end, o.Time)
	}
	for _, f := range res.Faults {
		end = max(end, f.End)
	}
	for _, o := range res.Observed.Quorum.Leaders {
		end = max(end, o.Time)
	}
	return max(end, time.Second)
}

// acksPanel counts acknowledged writes in each whole second of the run;
// the last, partial second is left out (a count over a fraction of a
// second would read as a drop in rate) and the last whole second's
// count is carried to the run's end.
func acksPanel(res scenarios.Result, end time.Duration) (*plot.Plot, error) {
	p := newPlot()
	p.Y.Label.Text = "acked writes (per second)"
	p.Y.Tick.Marker = wholeTicks{}
	whole := max(int(end/time.Second), 1)
	bins := make([]float64, whole)
	for _, op := range res.History {
		if op.F == model.FSend && op.Type == model.OpOK {
			if i := int(op.End / time.Second); i < whole {
				bins[i]++
			}
		}
	}
	xys := make(plotter.XYs, 0, whole+1)
	for i, n := range bins {
		xys = append(xys, plotter.XY{X: float64(i), Y: n})
	}
	xys = append(xys, plotter.XY{X: end.Seconds(), Y: bins[whole-1]})
	l, err := plotter.NewLine(xys)
	if err != nil {
		return nil, err
	}
	l.StepStyle = plotter.PostStep
	l.Color = color.Black
	p.Add(l)
	p.Legend.Add("acked writes", l)
	p.Y.Min = 0
	return p, nil
}

// partitionsOf lists the partitions the observations name, sorted.
func partitionsOf(res scenarios.Result) []model.TopicPartition {
	var tps []model.TopicPartition
	for _, o := range res.Observed.Leaders {
		if !slices.Contains(tps, o.TP) {
			tps = append(tps, o.TP)
		}
	}
	slices.SortFunc(tps, func(a, b model.TopicPartition) int {
		if a.Less(b) {
			return -1
		}
		if b.Less(a) {
			return 1
		}
		return 0
	})
	return tps
}

func leadersPanel(res scenarios.Result, end time.Duration) (*plot.Plot, error) {
	p := newPlot()
	p.X.Max = end.Seconds()
	p.Y.Label.Text = "leader (broker id)"
	idTicks(p)
	tps := partitionsOf(res)
	for i, tp := range tps {
		var xys plotter.XYs
		for _, o := range res.Observed.Leaders {
			if o.TP == tp {
				xys = append(xys, plotter.XY{X: o.Time.Seconds(), Y: float64(o.Leader) + spread(i, len(tps))})
			}
		}
		if err := addStep(p, xys, tp.String(), i); err != nil {
			return nil, err
		}
	}
	padIDs(p)
	return p, nil
}

func isrPanel(res scenarios.Result, end time.Duration) (*plot.Plot, error) {
	p := newPlot()
	p.X.Max = end.Seconds()
	p.Y.Label.Text = "ISR size (replicas)"
	idTicks(p)
	tps := partitionsOf(res)
	for i, tp := range tps {
		var xys plotter.XYs
		for _, o := range res.Observed.ISRs {
			if o.TP == tp {
				xys = append(xys, plotter.XY{X: o.Time.Seconds(), Y: float64(len(o.ISR)) + spread(i, len(tps))})
			}
		}
		if err := addStep(p, xys, tp.String(), i); err != nil {
			return nil, err
		}
	}
	p.Y.Min, p.Y.Max = 0, p.Y.Max+0.3
	return p, nil
}

func hwPanel(res scenarios.Result, end time.Duration) (*plot.Plot, error) {
	p := newPlot()
	p.X.Max = end.Seconds()
	p.Y.Label.Text = "high watermark (offset)"
	p.Y.Tick.Marker = wholeTicks{}
	for i, tp := range partitionsOf(res) {
		var xys plotter.XYs
		for _, o := range res.Observed.HighWatermarks {
			if o.TP == tp {
				xys = append(xys, plotter.XY{X: o.Time.Seconds(), Y: float64(o.HW)})
			}
		}
		if err := addStep(p, xys, tp.String(), i); err != nil {
			return nil, err
		}
	}
	p.Y.Min = 0
	return p, nil
}

// quorumLeaderChanged says the metadata quorum had more than one leader:
// a panel of one leader throughout would be a flat line with nothing to
// show, so the timeline leaves it out then.
func quorumLeaderChanged(res scenarios.Result) bool {
	var first model.BrokerID
	for i, o := range res.Observed.Quorum.Leaders {
		if i == 0 {
			first = o.Node
		} else if o.Node != first {
			return true
		}
	}
	return false
}

// labelFaults writes, at the start of each fault window, what the fault
// was and which nodes it hit ("crash b1"), on three staggered rows near
// the top of the panel (above top, the data's) so that neighbouring
// labels overlap less.
func labelFaults(p *plot.Plot, ws []scenarios.FaultWindow, top float64) error {
	if len(ws) == 0 {
		return nil
	}
	var xys plotter.XYLabels
	for i, w := range ws {
		name := string(w.Kind)
		for _, n := range w.Nodes {
			name += " " + n.String()
		}
		xys.XYs = append(xys.XYs, plotter.XY{X: w.Start.Seconds(), Y: top * (1.38 - 0.12*float64(i%3))})
		xys.Labels = append(xys.Labels, name)
	}
	l, err := plotter.NewLabels(xys)
	if err != nil {
		return err
	}
	for i := range l.TextStyle {
		l.TextStyle[i].Font = font.From(plotFont, 8)
		l.TextStyle[i].Color = color.NRGBA{R: 150, G: 20, B: 20, A: 255}
	}
	p.Add(l)
	return nil
}

// quorumPanel draws the metadata quorum's leader over time: the winner of
// each epoch higher than any before (a late winner of an older epoch, which
// Raft allows, never led the quorum the brokers followed).
func quorumPanel(res scenarios.Result, end time.Duration) (*plot.Plot, error) {
	p := newPlot()
	p.X.Max = end.Seconds()
	p.Y.Label.Text = "quorum leader (controller id)"
	idTicks(p)
	var xys plotter.XYs
	var top model.Epoch = -1
	for _, o := range res.Observed.Quorum.Leaders {
		if o.Epoch > top {
			top = o.Epoch
			xys = append(xys, plotter.XY{X: o.Time.Seconds(), Y: float64(o.Node)})
		}
	}
	if err := addStep(p, xys, "quorum leader", 0); err != nil {
		return nil, err
	}
	padIDs(p)
	return p, nil
}

// addStep draws a value that holds between observations, carried to the
// right edge of the panel (a value observed once holds to the end).
func addStep(p *plot.Plot, xys plotter.XYs, name string, i int) error {
	if len(xys) == 0 {
		return nil
	}
	if last := xys[len(xys)-1]; p.X.Max > last.X {
		xys = append(xys, plotter.XY{X: p.X.Max, Y: last.Y})
	}
	l, err := plotter.NewLine(xys)
	if err != nil {
		return err
	}
	l.StepStyle = plotter.PostStep
	l.Color, l.Dashes = seriesColor(i), seriesDashes(i)
	p.Add(l)
	p.Legend.Add(name, l)
	return nil
}

// shadeFaults adds a translucent band for every fault window across the
// panel's data range; an instantaneous fault gets a thin band so that it
// shows. With legend, the first band gets the legend's entry.
func shadeFaults(p *plot.Plot, ws []scenarios.FaultWindow, legend bool) error {
	if len(ws) == 0 {
		return nil
	}
	lo, hi := p.Y.Min, p.Y.Max
	if hi <= lo {
		hi = lo + 1
	}
	minWidth := (p.X.Max - p.X.Min) / 400
	first := legend
	for _, w := range ws {
		a, b := w.Start.Seconds(), w.End.Seconds()
		if b-a < minWidth {
			b = a + minWidth
		}
		poly, err := plotter.NewPolygon(plotter.XYs{{X: a, Y: lo}, {X: b, Y: lo}, {X: b, Y: hi}, {X: a, Y: hi}})
		if err != nil {
			return err
		}
		poly.Color = faultShade
		poly.LineStyle.Width = 0
		p.Add(poly)
		if first {
			p.Legend.Add("fault windows", poly)
			first = false
		}
	}
	return nil
}

// idTicks labels an axis of node ids (brokers, controllers) or small
// counts with every whole number in its range, and nothing between:
// there is no broker 1.5.
func idTicks(p *plot.Plot) { p.Y.Tick.Marker = plot.TickerFunc(integerTicks) }

// integerTicks are a labelled tick at every whole number from lo to hi,
// or at every k-th when there would be more than ten.
func integerTicks(lo, hi float64) []plot.Tick {
	a, b := math.Ceil(lo), math.Floor(hi)
	step := max(math.Ceil((b-a+1)/10), 1)
	var out []plot.Tick
	for v := a; v <= b; v += step {
		out = append(out, plot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', 0, 64)})
	}
	return out
}

// spread is how far the i-th of n series of whole values (a leader's id,
// an ISR's size) is drawn off its value, within ±0.2, so that partitions
// with the same value draw side by side instead of on top of each other;
// the ticks stay on the whole numbers, the values read as before.
func spread(i, n int) float64 {
	if n < 2 {
		return 0
	}
	return 0.4*float64(i)/float64(n-1) - 0.2
}

// padIDs leaves half an id of room above and below the ids drawn, so that
// a leader held throughout is not drawn on the axis itself.
func padIDs(p *plot.Plot) {
	if p.Y.Min <= p.Y.Max {
		p.Y.Min, p.Y.Max = p.Y.Min-0.5, p.Y.Max+0.5
	}
}
