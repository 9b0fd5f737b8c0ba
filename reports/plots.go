package reports

import (
	"fmt"
	"image/color"
	"io"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Formats are the image formats every plot is written in: PNG for a
// README or a slide, SVG for a browser (it scales, and its text is text).
var Formats = []string{"png", "svg"}

// plot sizes
const (
	plotWidth  = 7 * vg.Inch
	plotHeight = 4 * vg.Inch
)

// PlotCDF draws, for metric m, the empirical CDF of every group's
// failovers (one line per group, named by its label) and writes base.png
// and base.svg. Groups with no measured failover get no line. It returns
// the files written.
func PlotCDF(base string, groups []Group, m Metric) ([]string, error) {
	var series []cdfSeries
	for _, g := range groups {
		series = append(series, cdfSeries{g.Label, Values(g, m)})
	}
	return plotCDFs(base, "failover "+m.Title+" (CDF over failovers)", m.Title+" (virtual seconds)", series)
}

// cdfSeries is one line of a CDF plot: its legend and its sorted values.
type cdfSeries struct {
	label  string
	values []time.Duration
}

// plotCDFs draws one empirical CDF line per series that has values (its
// legend says how many) and writes base.png and base.svg.
func plotCDFs(base, title, xlabel string, series []cdfSeries) ([]string, error) {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = xlabel
	p.Y.Label.Text = "fraction of failovers"
	p.Y.Min, p.Y.Max = 0, 1
	p.X.Min = 0
	p.Legend.Top = false
	p.Legend.Left = false
	p.Add(plotter.NewGrid())
	lines := 0
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
			return nil, err
		}
		l.StepStyle = plotter.PostStep
		l.Color = plotutil.Color(i)
		l.Width = vg.Points(1.5)
		p.Add(l)
		p.Legend.Add(fmt.Sprintf("%s (n=%d)", sr.label, len(vs)), l)
		lines++
	}
	if lines == 0 {
		p.Title.Text += ": no failovers measured"
	}
	return save(p, base)
}

// PlotHistogram draws the histogram of metric m over all the groups'
// failovers, one translucent series per group so that they can be told
// apart, and writes base.png and base.svg.
func PlotHistogram(base string, groups []Group, m Metric) ([]string, error) {
	p := plot.New()
	p.Title.Text = "failover " + m.Title + " (histogram)"
	p.X.Label.Text = m.Title + " (virtual seconds)"
	p.Y.Label.Text = "failovers"
	// One set of bins for every group: from zero to the largest value.
	var hi time.Duration
	for _, g := range groups {
		if vs := Values(g, m); len(vs) > 0 {
			hi = max(hi, vs[len(vs)-1])
		}
	}
	const bins = 30
	width := max(hi.Seconds()/bins, 0.001)
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
			return nil, err
		}
		c := plotutil.Color(i)
		r, gg, b, _ := c.RGBA()
		l.Color = c
		l.FillColor = color.NRGBA{R: uint8(r >> 8), G: uint8(gg >> 8), B: uint8(b >> 8), A: 70}
		p.Add(l)
		p.Legend.Add(fmt.Sprintf("%s (n=%d)", g.Label, len(vs)), l)
	}
	p.X.Min, p.Y.Min = 0, 0
	return save(p, base)
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
