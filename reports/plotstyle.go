package reports

import (
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/vg"
)

// plotFont is the typeface of every plot's text: the sans-serif the HTML
// pages use, so that a figure reads as part of its page (gonum's default
// is a serif). It is one of the Liberation fonts gonum/plot embeds, so
// drawing needs no font installed.
var plotFont = font.Font{Typeface: "Liberation", Variant: "Sans"}

// newPlot is plot.New with plotFont on the title, the axes, their ticks
// and the legend, at the sizes given. gonum's text handler is its plain
// one: text is drawn as written (an underscore is an underscore, not a
// subscript as in its LaTeX handler).
func newPlot() *plot.Plot {
	p := plot.New()
	p.Title.TextStyle.Font = font.From(plotFont, 12)
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = font.From(plotFont, 11)
		a.Tick.Label.Font = font.From(plotFont, 10)
	}
	p.Legend.TextStyle.Font = font.From(plotFont, 10)
	p.Legend.Padding = vg.Points(2)
	return p
}
