package reports

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Formats are the image formats every plot is written in: PNG for a
// README or a slide, SVG for a browser (it scales, and its text is text).
var Formats = []string{"png", "svg"}

// plot sizes
const (
	plotWidth  = 10 * vg.Inch // the page's width at 100 pixels an inch
	plotHeight = 4.5 * vg.Inch
)

// Drawing is what a plot function wrote: its files, the legend the page
// shows outside the picture, and the picture's size.
type Drawing struct {
	Files  []string
	Legend []LegendEntry
	// Width and Height are the picture's size in pixels at 100 an inch,
	// what the page reserves for it before it loads.
	Width, Height int
	// Panels says the picture is a grid of small multiples, one panel per
	// legend entry in the legend's order, each titled with its label.
	Panels bool
	// XFrom is where the x axis starts when not at zero (see xRange), in
	// seconds, for the caption to say; 0 otherwise.
	XFrom float64
}

// PlotCDF draws, for metric m, the empirical CDF of every group's
// failovers (one line per group, named by its label) and writes base.png
// and base.svg. Groups with no measured failover get no line, and when no
// group has one nothing is drawn (and an older drawing is removed). Past
// palette's sixteen series, one plot would be a tangle, so each series
// gets a small panel of its own (see smallMultiples).
func PlotCDF(base string, groups []Group, m Metric) (Drawing, error) {
	var series []cdfSeries
	for _, g := range groups {
		series = append(series, cdfSeries{g.Label, Values(g, m), g.stats.Failovers})
	}
	return plotCDFs(base, "failover "+m.Title+" (CDF over failovers)", m.Title+" (virtual seconds)", series)
}

// cdfSeries is one line of a CDF plot: its legend, its sorted values, and
// how many failovers the tables count for it (some unmeasured).
type cdfSeries struct {
	label  string
	values []time.Duration
	total  int
}

// LegendEntry is one series of a plot, for a legend outside it: its
// colour, its label, the values drawn and the failovers the tables count.
type LegendEntry struct {
	Color, Label string
	Dashed       bool
	N, Total     int
}

// Note is the entry's count: the values drawn, and the failovers the
// tables count when some were not drawn (UnmeasuredNote says why, once
// under the legend).
func (e LegendEntry) Note() string {
	if e.N == e.Total {
		return fmt.Sprintf("n=%d", e.N)
	}
	return fmt.Sprintf("n=%d of %d failovers", e.N, e.Total)
}

// UnmeasuredNote says why a legend's counts can be smaller than the
// tables' failover counts.
const UnmeasuredNote = "Where n is smaller than the failovers the tables count, the rest were unmeasured (no election, or no acknowledged write after it) or left out of a large sweep's bounded sample."

// Short says some entry of the legend counts fewer values than failovers.
func Short(legend []LegendEntry) bool {
	return slices.ContainsFunc(legend, func(e LegendEntry) bool { return e.N != e.Total })
}

// smallMultiplesPast is the number of series past which a plot becomes a
// grid of small multiples: up to it every series has a colour of its own.
var smallMultiplesPast = len(palette)

// plotCDFs draws one empirical CDF line per series that has values and
// writes base.png and base.svg; with no values anywhere it writes nothing.
func plotCDFs(base, title, xlabel string, series []cdfSeries) (Drawing, error) {
	series = slices.DeleteFunc(slices.Clone(series), func(s cdfSeries) bool { return len(s.values) == 0 })
	if len(series) == 0 {
		return Drawing{}, removePlot(base)
	}
	var all []time.Duration
	for _, sr := range series {
		all = append(all, sr.values[0], sr.values[len(sr.values)-1])
	}
	xmin, xmax := xRange(all)
	legend := make([]LegendEntry, len(series))
	lines := make([]*plotter.Line, len(series))
	for i, sr := range series {
		l, err := cdfLine(sr.values, 0)
		if err != nil {
			return Drawing{}, err
		}
		l.Color, l.Dashes, l.Width = seriesColor(i), seriesDashes(i), vg.Points(1.5)
		lines[i] = l
		legend[i] = LegendEntry{Color: cssColor(seriesColor(i)), Label: sr.label, Dashed: l.Dashes != nil, N: len(sr.values), Total: max(sr.total, len(sr.values))}
	}
	const ylabel = "fraction of failovers"
	setAxes := func(p *plot.Plot) {
		p.X.Min, p.X.Max = xmin, xmax
		p.Y.Min, p.Y.Max = 0, 1
		p.Add(plotter.NewGrid())
	}
	if len(series) <= smallMultiplesPast {
		return drawOnePlot(base, title, xlabel, ylabel, setAxes, lines, legend, xmin)
	}
	// Small multiples: each panel draws its series over the pooled CDF
	// of every series (grey), the shape it can be told apart from.
	var pooled []time.Duration
	for _, sr := range series {
		pooled = append(pooled, sr.values...)
	}
	slices.Sort(pooled)
	panels := make([]*plot.Plot, len(series))
	for i, l := range lines {
		p := newPlot()
		setAxes(p)
		ref, err := cdfLine(pooled, pooledPoints)
		if err != nil {
			return Drawing{}, err
		}
		ref.Color, ref.Width = pooledGrey, vg.Points(1)
		l.Color, l.Dashes = seriesColor(0), nil
		p.Add(ref, l)
		panels[i] = p
	}
	for i := range legend {
		legend[i].Color, legend[i].Dashed = cssColor(seriesColor(0)), false
	}
	d, err := smallMultiples(base, title+"; grey: every series pooled", xlabel, ylabel, panels, legend)
	d.XFrom = xmin
	return d, err
}

// pooledGrey draws the reference every small multiple shares.
var pooledGrey = color.NRGBA{R: 190, G: 190, B: 190, A: 255}

// pooledPoints bounds the points of a pooled reference line, drawn in
// every panel: a CDF of a few hundred evenly spaced ranks is smooth at
// a panel's size, and the SVG of thirty panels stays small.
const pooledPoints = 400

// cdfLine is the empirical CDF of sorted values as a step line: at most
// points steps when points > 0 (evenly spaced ranks, the last included).
func cdfLine(vs []time.Duration, points int) (*plotter.Line, error) {
	n := len(vs)
	step := 1
	if points > 0 && n > points {
		step = (n + points - 1) / points
	}
	xys := make(plotter.XYs, 0, n/step+2)
	xys = append(xys, plotter.XY{X: vs[0].Seconds(), Y: 0})
	for j := step - 1; ; j += step {
		j = min(j, n-1)
		xys = append(xys, plotter.XY{X: vs[j].Seconds(), Y: float64(j+1) / float64(n)})
		if j == n-1 {
			break
		}
	}
	l, err := plotter.NewLine(xys)
	if err != nil {
		return nil, err
	}
	l.StepStyle = plotter.PostStep
	return l, nil
}

// xRange is the x axis of a latency plot whose values span the smallest
// to the largest of vs. It starts at zero, which keeps the axis honest
// about how long the waits were, unless every value is past half the
// largest: then the values would be squeezed into the right edge, and
// the axis starts a little before the smallest instead (its ticks say
// where). The end leaves a little room so that the last step shows.
func xRange(vs []time.Duration) (float64, float64) {
	lo, hi := math.Inf(1), 0.0
	for _, v := range vs {
		lo, hi = min(lo, v.Seconds()), max(hi, v.Seconds())
	}
	if hi <= 0 {
		return 0, 1
	}
	xmin := 0.0
	if lo > hi/2 {
		xmin = max(0, lo-0.1*(hi-lo)-0.001)
	}
	return xmin, hi + 0.03*(hi-xmin)
}

// pixels is a length in pixels at 100 an inch.
func pixels(l vg.Length) int { return int(math.Round(float64(l / vg.Inch * 100))) }

// removePlot removes base's drawings, left by an older report of the same
// folder, so that a plot with no data is absent, not stale.
func removePlot(base string) error {
	for _, f := range Formats {
		if err := os.Remove(base + "." + f); err != nil && !os.IsNotExist(err) {
			return err
		}
	}
	return nil
}

// histogramBins is how many bins a histogram has, between the x axis's
// ends (xRange).
const histogramBins = 30

// PlotHistogram draws the histogram of metric m over all the groups'
// failovers, one outlined (unfilled) series per group so that none hides
// another, with whole-number counts, and writes base.png and base.svg;
// with no values it writes nothing. Past sixteen series it draws small
// multiples, one panel per group, with the same bins and counts axis.
func PlotHistogram(base string, groups []Group, m Metric) (Drawing, error) {
	type hist struct {
		g  Group
		vs []time.Duration
	}
	var hs []hist
	var ends []time.Duration
	for _, g := range groups {
		if vs := Values(g, m); len(vs) > 0 {
			hs = append(hs, hist{g, vs})
			ends = append(ends, vs[0], vs[len(vs)-1])
		}
	}
	if len(hs) == 0 {
		return Drawing{}, removePlot(base)
	}
	// One set of bins for every group, across the axis.
	xmin, xmax := xRange(ends)
	width := (xmax - xmin) / histogramBins
	legend := make([]LegendEntry, len(hs))
	lines := make([]*plotter.Line, len(hs))
	var top float64
	for i, h := range hs {
		counts := make([]float64, histogramBins)
		for _, v := range h.vs {
			counts[min(max(int((v.Seconds()-xmin)/width), 0), histogramBins-1)]++
		}
		xys := make(plotter.XYs, 0, 2*len(counts))
		for b, c := range counts {
			xys = append(xys, plotter.XY{X: xmin + float64(b)*width, Y: c}, plotter.XY{X: xmin + float64(b+1)*width, Y: c})
			top = max(top, c)
		}
		l, err := plotter.NewLine(xys)
		if err != nil {
			return Drawing{}, err
		}
		l.Color, l.Dashes, l.Width = seriesColor(i), seriesDashes(i), vg.Points(1.5)
		lines[i] = l
		legend[i] = LegendEntry{Color: cssColor(seriesColor(i)), Label: h.g.Label, Dashed: l.Dashes != nil, N: len(h.vs), Total: max(h.g.stats.Failovers, len(h.vs))}
	}
	title, xlabel, ylabel := "failover "+m.Title+" (histogram)", m.Title+" (virtual seconds)", "failovers (count)"
	setAxes := func(p *plot.Plot) {
		p.Y.Tick.Marker = wholeTicks{}
		p.X.Min, p.X.Max = xmin, xmax
		p.Y.Min, p.Y.Max = 0, max(top*1.05, 1)
	}
	if len(hs) <= smallMultiplesPast {
		return drawOnePlot(base, title, xlabel, ylabel, setAxes, lines, legend, xmin)
	}
	panels := make([]*plot.Plot, len(hs))
	for i, l := range lines {
		p := newPlot()
		setAxes(p)
		l.Color, l.Dashes = seriesColor(0), nil
		p.Add(l)
		panels[i] = p
	}
	for i := range legend {
		legend[i].Color, legend[i].Dashed = cssColor(seriesColor(0)), false
	}
	d, err := smallMultiples(base, title, xlabel, ylabel, panels, legend)
	d.XFrom = xmin
	return d, err
}

// wholeTicks are gonum's default ticks with the fractional ones dropped
// and the rest written without decimals: counts are whole numbers.
type wholeTicks struct{}

func (wholeTicks) Ticks(lo, hi float64) []plot.Tick {
	var out []plot.Tick
	for _, t := range (plot.DefaultTicks{}).Ticks(lo, hi) {
		if t.Value != math.Trunc(t.Value) {
			if t.Label == "" {
				out = append(out, plot.Tick{Value: t.Value})
			}
			continue
		}
		if t.Label != "" {
			t.Label = strconv.FormatFloat(t.Value, 'f', 0, 64)
		}
		out = append(out, t)
	}
	return out
}

// save writes p in every format, each through a temporary file.
// drawOnePlot draws every series on one plot, for up to
// smallMultiplesPast series.
func drawOnePlot(base, title, xlabel, ylabel string, setAxes func(*plot.Plot), lines []*plotter.Line, legend []LegendEntry, xmin float64) (Drawing, error) {
	p := newPlot()
	p.Title.Text, p.X.Label.Text, p.Y.Label.Text = title, xlabel, ylabel
	setAxes(p)
	for _, l := range lines {
		p.Add(l)
	}
	files, err := save(p, base)
	return Drawing{Files: files, Legend: legend, Width: pixels(plotWidth), Height: pixels(plotHeight), XFrom: xmin}, err
}

func save(p *plot.Plot, base string) ([]string, error) {
	return saveCanvas(base, plotWidth, plotHeight, func(dc draw.Canvas) { p.Draw(dc) })
}

// saveCanvas draws a picture of the given size in every format and writes
// base.<format>, each through a temporary file.
func saveCanvas(base string, w, h vg.Length, drawOn func(draw.Canvas)) ([]string, error) {
	var out []string
	for _, f := range Formats {
		path := base + "." + f
		c, err := draw.NewFormattedCanvas(w, h, f)
		if err != nil {
			return nil, err
		}
		drawOn(draw.New(c))
		if err := WriteFile(path, func(w io.Writer) error { _, err := c.WriteTo(w); return err }); err != nil {
			return nil, err
		}
		out = append(out, path)
	}
	return out, nil
}
