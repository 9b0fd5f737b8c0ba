package reports

import (
	"image/color"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Small multiples (Tufte's name): past sixteen series a single plot's
// lines can no longer be told apart by colour, so the plot becomes a grid
// of small panels, one per series, on shared axes (the same x range and
// y range in every panel, set by the caller), read left to right, top to
// bottom, in the legend's order.
const (
	multiplesCols        = 4
	multiplesPanelHeight = 2 * vg.Inch
	multiplesTitleHeight = 0.35 * vg.Inch
)

// smallMultiples lays panels out in a grid multiplesCols wide, under one
// title and over one x-axis label, titles each panel with its legend
// entry's label (less the setting's name, which the title says once, when
// every label names the same one) and count, labels the y axis on the left
// column only, and writes base.png and base.svg.
func smallMultiples(base, title, xlabel, ylabel string, panels []*plot.Plot, legend []LegendEntry) (Drawing, error) {
	rows := (len(panels) + multiplesCols - 1) / multiplesCols
	grid := make([][]*plot.Plot, rows)
	for r := range grid {
		grid[r] = make([]*plot.Plot, multiplesCols)
	}
	labels := make([]string, len(legend))
	for i, e := range legend {
		labels[i] = e.Label
	}
	prefix := sharedSetting(labels)
	if prefix != "" {
		title += "; panels by " + strings.TrimSuffix(prefix, "=")
	}
	for i, p := range panels {
		r, c := i/multiplesCols, i%multiplesCols
		// Two lines, name over count: a panel is a quarter of the page.
		p.Title.Text = strings.TrimPrefix(legend[i].Label, prefix) + "\n" + legend[i].Note()
		p.Title.TextStyle.Font = font.From(plotFont, 9)
		if c == 0 {
			p.Y.Label.Text = ylabel
		}
		for _, a := range []*plot.Axis{&p.X, &p.Y} {
			a.Label.TextStyle.Font = font.From(plotFont, 9)
			a.Tick.Label.Font = font.From(plotFont, 8)
		}
		grid[r][c] = p
	}
	w, h := plotWidth, 2*multiplesTitleHeight+vg.Length(rows)*multiplesPanelHeight
	tiles := draw.Tiles{Rows: rows, Cols: multiplesCols, PadTop: vg.Millimeter, PadBottom: vg.Millimeter * 2,
		PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 3, PadX: vg.Millimeter * 4, PadY: vg.Millimeter * 3}
	files, err := saveCanvas(base, w, h, func(dc draw.Canvas) {
		dc.SetColor(color.White)
		dc.Fill(dc.Rectangle.Path())
		sty := newPlot().Title.TextStyle
		dc.FillText(sty, vg.Point{X: dc.Center().X, Y: dc.Max.Y - vg.Millimeter*2}, title)
		label := newPlot().X.Label.TextStyle
		label.XAlign, label.YAlign = draw.XCenter, draw.YBottom
		dc.FillText(label, vg.Point{X: dc.Center().X, Y: dc.Min.Y + vg.Millimeter*2}, xlabel)
		body := draw.Crop(dc, 0, 0, multiplesTitleHeight, -multiplesTitleHeight)
		cells := plot.Align(grid, tiles, body)
		for r := range grid {
			for c, p := range grid[r] {
				if p != nil {
					p.Draw(cells[r][c])
				}
			}
		}
	})
	return Drawing{Files: files, Legend: legend, Width: pixels(w), Height: pixels(h), Panels: true}, err
}

// sharedSetting is the "key=" every label starts with, when they all name
// the same setting (a -vary sweep's groups), or "".
func sharedSetting(labels []string) string {
	if len(labels) == 0 {
		return ""
	}
	key, _, ok := strings.Cut(labels[0], "=")
	if !ok || strings.Contains(key, " ") {
		return ""
	}
	for _, l := range labels {
		if !strings.HasPrefix(l, key+"=") {
			return ""
		}
	}
	return key + "="
}
