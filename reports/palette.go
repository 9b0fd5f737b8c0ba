package reports

import (
	"fmt"
	"image/color"

	"gonum.org/v1/plot/vg"
)

// palette are sixteen colours that stay apart from one another on a white
// page (the ten of Tableau's category palette, then six darker or
// lighter ones), so that a plot of up to sixteen series never repeats a
// colour; past sixteen, series repeat colours with a dash pattern.
var palette = []color.NRGBA{
	{0x1f, 0x77, 0xb4, 0xff}, {0xff, 0x7f, 0x0e, 0xff}, {0x2c, 0xa0, 0x2c, 0xff}, {0xd6, 0x27, 0x28, 0xff},
	{0x94, 0x67, 0xbd, 0xff}, {0x8c, 0x56, 0x4b, 0xff}, {0xe3, 0x77, 0xc2, 0xff}, {0x7f, 0x7f, 0x7f, 0xff},
	{0xbc, 0xbd, 0x22, 0xff}, {0x17, 0xbe, 0xcf, 0xff}, {0x39, 0x3b, 0x79, 0xff}, {0x00, 0x00, 0x00, 0xff},
	{0x63, 0x79, 0x39, 0xff}, {0xe7, 0xba, 0x52, 0xff}, {0xad, 0x49, 0x4a, 0xff}, {0x7b, 0xcc, 0xc4, 0xff},
}

// seriesColor is the i-th series' colour.
func seriesColor(i int) color.NRGBA { return palette[i%len(palette)] }

// seriesDashes is the i-th series' dash pattern: solid for the first
// sixteen, then dashed, so that a repeated colour is still told apart.
func seriesDashes(i int) []vg.Length {
	if i < len(palette) {
		return nil
	}
	return []vg.Length{vg.Points(6), vg.Points(2 + float64(i/len(palette)))}
}

// cssColor writes c for a style attribute.
func cssColor(c color.NRGBA) string { return fmt.Sprintf("#%02x%02x%02x", c.R, c.G, c.B) }
