package reports

import (
	"fmt"
	"image/color"
	"io"
	"slices"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
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
	acks, err := acksPanel(res, end)
	if err != nil {
		return nil, err
	}
	leaders, err := leadersPanel(res, end)
	if err != nil {
		return nil, err
	}
	isrs, err := isrPanel(res, end)
	if err != nil {
		return nil, err
	}
	hws, err := hwPanel(res, end)
	if err != nil {
		return nil, err
	}
	acks.Title.Text = fmt.Sprintf("%s seed %d (fault windows shaded, labelled with the fault and its nodes)", res.Scenario, res.Seed)
	if err := labelFaults(acks, res.Faults); err != nil {
		return nil, err
	}
	panels := []*plot.Plot{acks, leaders, isrs, hws}
	if quorumLeaderChanged(res) {
		q, err := quorumPanel(res, end)
		if err != nil {
			return nil, err
		}
		panels = append(panels, q)
	}
	for _, p := range panels {
		p.X.Min, p.X.Max = 0, end.Seconds()
		if err := shadeFaults(p, res.Faults); err != nil {
			return nil, err
		}
	}
	panels[len(panels)-1].X.Label.Text = "virtual time (s)"
	var out []string
	for _, f := range Formats {
		c, err := draw.NewFormattedCanvas(8*vg.Inch, vg.Length(len(panels))*11*vg.Inch/4, f)
		if err != nil {
			return nil, err
		}
		tiles := draw.Tiles{Rows: len(panels), Cols: 1, PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 2, PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 2, PadY: vg.Millimeter * 4}
		rows := make([][]*plot.Plot, len(panels))
		for i, p := range panels {
			rows[i] = []*plot.Plot{p}
		}
		canvases := plot.Align(rows, tiles, draw.New(c))
		for i, p := range panels {
			p.Draw(canvases[i][0])
		}
		path := base + "." + f
		if err := WriteFile(path, func(w io.Writer) error { _, err := c.WriteTo(w); return err }); err != nil {
			return nil, err
		}
		out = append(out, path)
	}
	return out, nil
}

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

func acksPanel(res scenarios.Result, end time.Duration) (*plot.Plot, error) {
	p := plot.New()
	p.Y.Label.Text = "acked writes/s"
	bins := make([]float64, int(end/time.Second)+1)
	for _, op := range res.History {
		if op.F == model.FSend && op.Type == model.OpOK {
			bins[int(op.End/time.Second)]++
		}
	}
	xys := make(plotter.XYs, len(bins))
	for i, n := range bins {
		xys[i] = plotter.XY{X: float64(i), Y: n}
	}
	l, err := plotter.NewLine(xys)
	if err != nil {
		return nil, err
	}
	l.StepStyle = plotter.PostStep
	p.Add(l)
	p.Legend.Add("acked writes/s", l)
	p.Legend.Top = true
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
	p := plot.New()
	p.X.Max = end.Seconds()
	p.Y.Label.Text = "leader (broker id)"
	p.Legend.Top = true
	for i, tp := range partitionsOf(res) {
		var xys plotter.XYs
		for _, o := range res.Observed.Leaders {
			if o.TP == tp {
				xys = append(xys, plotter.XY{X: o.Time.Seconds(), Y: float64(o.Leader)})
			}
		}
		if err := addStep(p, xys, tp.String()+" leader", i); err != nil {
			return nil, err
		}
	}
	return p, nil
}

func isrPanel(res scenarios.Result, end time.Duration) (*plot.Plot, error) {
	p := plot.New()
	p.X.Max = end.Seconds()
	p.Y.Label.Text = "ISR size"
	p.Legend.Top = true
	for i, tp := range partitionsOf(res) {
		var xys plotter.XYs
		for _, o := range res.Observed.ISRs {
			if o.TP == tp {
				xys = append(xys, plotter.XY{X: o.Time.Seconds(), Y: float64(len(o.ISR))})
			}
		}
		if err := addStep(p, xys, tp.String()+" isr", i); err != nil {
			return nil, err
		}
	}
	p.Y.Min = 0
	return p, nil
}

func hwPanel(res scenarios.Result, end time.Duration) (*plot.Plot, error) {
	p := plot.New()
	p.X.Max = end.Seconds()
	p.Y.Label.Text = "high watermark"
	p.Legend.Top = true
	p.Legend.Left = true
	for i, tp := range partitionsOf(res) {
		var xys plotter.XYs
		for _, o := range res.Observed.HighWatermarks {
			if o.TP == tp {
				xys = append(xys, plotter.XY{X: o.Time.Seconds(), Y: float64(o.HW)})
			}
		}
		if err := addStep(p, xys, tp.String()+" hw", i); err != nil {
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
// the top of the panel so that neighbouring labels overlap less.
func labelFaults(p *plot.Plot, ws []scenarios.FaultWindow) error {
	if len(ws) == 0 {
		return nil
	}
	top := max(p.Y.Max, 1)
	p.Y.Max = top * 1.45 // room for the labels above the data
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
		l.TextStyle[i].Font.Size = vg.Points(8)
		l.TextStyle[i].Color = color.NRGBA{R: 150, G: 20, B: 20, A: 255}
	}
	p.Add(l)
	return nil
}

// quorumPanel draws the metadata quorum's leader over time: the winner of
// each epoch higher than any before (a late winner of an older epoch, which
// Raft allows, never led the quorum the brokers followed).
func quorumPanel(res scenarios.Result, end time.Duration) (*plot.Plot, error) {
	p := plot.New()
	p.X.Max = end.Seconds()
	p.Y.Label.Text = "quorum leader (controller id)"
	p.Legend.Top = true
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
	l.Color = plotutil.Color(i)
	l.Dashes = plotutil.Dashes(i)
	p.Add(l)
	p.Legend.Add(name, l)
	return nil
}

// shadeFaults adds a translucent band for every fault window across the
// panel's data range; an instantaneous fault gets a thin band so that it
// shows.
func shadeFaults(p *plot.Plot, ws []scenarios.FaultWindow) error {
	if len(ws) == 0 {
		return nil
	}
	lo, hi := p.Y.Min, p.Y.Max
	if hi <= lo {
		hi = lo + 1
	}
	minWidth := (p.X.Max - p.X.Min) / 400
	first := true
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
			p.Legend.Add("faults", poly)
			first = false
		}
	}
	return nil
}
