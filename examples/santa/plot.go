package main

import (
	"fmt"
	"image/color"
	"io"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	vgdraw "gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// The colours of the lines.
var (
	queueColor   = color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff}
	runningColor = color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff}
	limitColor   = color.Gray{Y: 110}
)

// draw writes to w a PNG with one panel per strategy, one above the other,
// on the same axes: the jobs waiting and the jobs running over time, and the
// limit where there is one. A dotted line marks the end of the arrivals.
func draw(w io.Writer, outs []outcome) error {
	var xmax, ymax float64
	for _, o := range outs {
		for _, s := range o.samples {
			xmax = max(xmax, s.at.Seconds())
			ymax = max(ymax, float64(s.queue), float64(s.running), float64(s.limit))
		}
	}
	rows := make([][]*plot.Plot, len(outs))
	for i, o := range outs {
		p, err := panel(o, xmax, ymax)
		if err != nil {
			return err
		}
		rows[i] = []*plot.Plot{p}
	}
	img := vgimg.New(12*vg.Inch, vg.Length(3*len(outs))*vg.Inch)
	dc := vgdraw.New(img)
	tiles := vgdraw.Tiles{Rows: len(outs), Cols: 1, PadX: vg.Millimeter, PadY: 3 * vg.Millimeter,
		PadTop: 2 * vg.Millimeter, PadBottom: vg.Millimeter, PadLeft: vg.Millimeter, PadRight: 2 * vg.Millimeter}
	canvases := plot.Align(rows, tiles, dc)
	for i := range rows {
		rows[i][0].Draw(canvases[i][0])
	}
	_, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(w)
	return err
}

// panel plots one strategy's samples.
func panel(o outcome, xmax, ymax float64) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s: %s", o.s.name, o.s.about)
	p.X.Label.Text = "time (s)"
	p.Y.Label.Text = "jobs"
	p.X.Min, p.X.Max = 0, xmax
	p.Y.Min, p.Y.Max = 0, ymax*1.05
	p.Legend.Top = true
	series := []struct {
		name  string
		y     func(sample) int
		color color.Color
		skip  bool
	}{
		{"waiting", func(s sample) int { return s.queue }, queueColor, false},
		{"running", func(s sample) int { return s.running }, runningColor, false},
		{"limit", func(s sample) int { return s.limit }, limitColor, o.samples[len(o.samples)-1].limit == 0},
	}
	for _, sr := range series {
		if sr.skip {
			continue
		}
		pts := make(plotter.XYs, len(o.samples))
		for i, s := range o.samples {
			pts[i] = plotter.XY{X: s.at.Seconds(), Y: float64(sr.y(s))}
		}
		l, err := plotter.NewLine(pts)
		if err != nil {
			return nil, fmt.Errorf("plot %s: %w", o.s.name, err)
		}
		l.Color = sr.color
		l.Width = vg.Points(1)
		if sr.name == "limit" {
			l.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
		}
		p.Add(l)
		p.Legend.Add(sr.name, l)
	}
	end, err := plotter.NewLine(plotter.XYs{{X: o.duration.Seconds(), Y: 0}, {X: o.duration.Seconds(), Y: ymax * 1.05}})
	if err != nil {
		return nil, err
	}
	end.Color = limitColor
	end.Dashes = []vg.Length{vg.Points(1), vg.Points(3)}
	p.Add(end)
	p.Legend.Add("arrivals end", end)
	return p, nil
}
