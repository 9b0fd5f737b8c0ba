package reports

import (
	"fmt"
	"io"
	"math"
	"os"
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

// PlotCDF draws, for metric m, the empirical CDF of every group's
// failovers (one line per group, named by its label) and writes base.png
// and base.svg. Groups with no measured failover get no line, and when no
// group has one nothing is drawn (and an older drawing is removed). It
// returns the files written and the legend, which the HTML report shows
// beside the plot rather than on top of the curves.
func PlotCDF(base string, groups []Group, m Metric) ([]string, []LegendEntry, error) {
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

// Note says why N and Total differ, when they do.
func (e LegendEntry) Note() string {
	if e.N == e.Total {
		return fmt.Sprintf("n=%d", e.N)
	}
	return fmt.Sprintf("n=%d of %d failovers (%d unmeasured: no election, no acknowledged write after, or a sample of a large sweep)", e.N, e.Total, e.Total-e.N)
}

// plotCDFs draws one empirical CDF line per series that has values and
// writes base.png and base.svg; with no values anywhere it writes nothing.
func plotCDFs(base, title, xlabel string, series []cdfSeries) ([]string, []LegendEntry, error) {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = xlabel
	p.Y.Label.Text = "fraction of failovers"
	p.Y.Min, p.Y.Max = 0, 1
	p.X.Min = 0
	p.Add(plotter.NewGrid())
	var legend []LegendEntry
	for i, sr := range series {
		vs := sr.values
		if len(vs) == 0 {
			continue
		}
		xys := make(plotter.XYs, 0, len(vs)+1)
		xys = append(xys, plotter.XY{X: vs[0].Seconds(), Y: 0})
		for j, v := range vs {
			xys = append(xys, plotter.XY{X: v.Seconds(), Y: float64(j+1) / float64(len(vs))})
		}
		l, err := plotter.NewLine(xys)
		if err != nil {
			return nil, nil, err
		}
		l.StepStyle = plotter.PostStep
		l.Color = seriesColor(i)
		l.Dashes = seriesDashes(i)
		l.Width = vg.Points(1.5)
		p.Add(l)
		legend = append(legend, LegendEntry{Color: cssColor(seriesColor(i)), Label: sr.label, Dashed: l.Dashes != nil, N: len(vs), Total: max(sr.total, len(vs))})
	}
	if len(legend) == 0 {
		return nil, nil, removePlot(base)
	}
	files, err := save(p, base)
	return files, legend, err
}

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

// PlotHistogram draws the histogram of metric m over all the groups'
// failovers, one outlined (unfilled) series per group so that none hides
// another, with whole-number counts, and writes base.png and base.svg;
// with no values it writes nothing.
func PlotHistogram(base string, groups []Group, m Metric) ([]string, []LegendEntry, error) {
	p := plot.New()
	p.Title.Text = "failover " + m.Title + " (histogram)"
	p.X.Label.Text = m.Title + " (virtual seconds)"
	p.Y.Label.Text = "failovers (count)"
	p.Y.Tick.Marker = wholeTicks{}
	// One set of bins for every group: from zero to the largest value.
	var hi time.Duration
	for _, g := range groups {
		if vs := Values(g, m); len(vs) > 0 {
			hi = max(hi, vs[len(vs)-1])
		}
	}
	const bins = 30
	width := max(hi.Seconds()/bins, 0.001)
	var legend []LegendEntry
	for i, g := range groups {
		vs := Values(g, m)
		if len(vs) == 0 {
			continue
		}
		counts := make([]float64, bins+1)
		for _, v := range vs {
			counts[min(int(v.Seconds()/width), bins)]++
		}
		xys := make(plotter.XYs, 0, 2*len(counts))
		for b, c := range counts {
			xys = append(xys, plotter.XY{X: float64(b) * width, Y: c}, plotter.XY{X: float64(b+1) * width, Y: c})
		}
		l, err := plotter.NewLine(xys)
		if err != nil {
			return nil, nil, err
		}
		l.Color = seriesColor(i)
		l.Dashes = seriesDashes(i)
		l.Width = vg.Points(1.5)
		p.Add(l)
		legend = append(legend, LegendEntry{Color: cssColor(seriesColor(i)), Label: g.Label, Dashed: l.Dashes != nil, N: len(vs), Total: max(g.stats.Failovers, len(vs))})
	}
	if len(legend) == 0 {
		return nil, nil, removePlot(base)
	}
	p.X.Min, p.Y.Min = 0, 0
	files, err := save(p, base)
	return files, legend, err
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
func save(p *plot.Plot, base string) ([]string, error) {
	var out []string
	for _, f := range Formats {
		path := base + "." + f
		c, err := draw.NewFormattedCanvas(plotWidth, plotHeight, f)
		if err != nil {
			return nil, err
		}
		p.Draw(draw.New(c))
		if err := WriteFile(path, func(w io.Writer) error { _, err := c.WriteTo(w); return err }); err != nil {
			return nil, err
		}
		out = append(out, path)
	}
	return out, nil
}
