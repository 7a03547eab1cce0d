package main

import (
	"fmt"
	"image/color"
	"os"
	"path/filepath"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	vgdraw "gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/evolvekit/evolve/sim"
)

// palette colours the lines: the best fixed limit grey, hill red, santa
// blue, then each of Netflix's limits dark and its windowed form light.
var palette = []color.Color{
	color.Gray{Y: 150},
	color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff},
	color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff},
	color.RGBA{R: 0x2c, G: 0xa0, B: 0x2c, A: 0xff},
	color.RGBA{R: 0x98, G: 0xdf, B: 0x8a, A: 0xff},
	color.RGBA{R: 0x94, G: 0x67, B: 0xbd, A: 0xff},
	color.RGBA{R: 0xc5, G: 0xb0, B: 0xd5, A: 0xff},
	color.RGBA{R: 0xff, G: 0x7f, B: 0x0e, A: 0xff},
	color.RGBA{R: 0xff, G: 0xbb, B: 0x78, A: 0xff},
}

// draw writes dir/NAME.png for r: the limit over time on top, the items
// waiting below (in the agent's input queue, whose bound a flood keeps full,
// plus the backlog that arrived and is not yet let in), one line per
// controller and one for the best fixed limit.
func draw(r report, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	outcomes := append([]outcome{r.best}, r.controllers...)
	top, err := panel(r.sc.name+": limit", "limit", outcomes, func(s sim.Sample) float64 { return float64(s.Limit) })
	if err != nil {
		return err
	}
	bottom, err := panel(r.sc.name+": items waiting", "queued + backlog", outcomes, func(s sim.Sample) float64 { return float64(s.Queued) + float64(s.Backlog) })
	if err != nil {
		return err
	}
	return writeStacked(filepath.Join(dir, r.sc.name+".png"), top, bottom)
}

// writeStacked writes top above bottom, their axes aligned, to a PNG file
// at path.
func writeStacked(path string, top, bottom *plot.Plot) error {
	img := vgimg.New(12*vg.Inch, 8*vg.Inch)
	dc := vgdraw.New(img)
	tiles := vgdraw.Tiles{Rows: 2, Cols: 1, PadX: vg.Millimeter, PadY: 2 * vg.Millimeter,
		PadTop: vg.Millimeter, PadBottom: vg.Millimeter, PadLeft: vg.Millimeter, PadRight: vg.Millimeter}
	canvases := plot.Align([][]*plot.Plot{{top}, {bottom}}, tiles, dc)
	top.Draw(canvases[0][0])
	bottom.Draw(canvases[1][0])
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// panel plots y over time for each outcome.
func panel(title, ylabel string, outcomes []outcome, y func(sim.Sample) float64) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "virtual time (s)"
	p.Y.Label.Text = ylabel
	p.Legend.Top = true
	lines := make([]*plotter.Line, len(outcomes))
	for i, o := range outcomes {
		pts := make(plotter.XYs, len(o.res.Trace))
		for j, s := range o.res.Trace {
			pts[j] = plotter.XY{X: s.At.Seconds(), Y: y(s)}
		}
		l, err := plotter.NewLine(pts)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", title, err)
		}
		l.Color = palette[i%len(palette)]
		l.Width = vg.Points(1)
		lines[i] = l
		p.Legend.Add(o.name, l)
	}
	// The first outcomes (the best fixed limit, hill) are drawn last, on
	// top.
	for i := len(lines) - 1; i >= 0; i-- {
		p.Add(lines[i])
	}
	return p, nil
}
