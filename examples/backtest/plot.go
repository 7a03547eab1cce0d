package main

import (
	"fmt"
	"image/color"
	"os"
	"path/filepath"
	"strconv"
	"time"

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

// draw writes dir/NAME.png for r and returns its path: the limit over time
// on top, one line per controller and one for the best fixed limit, and
// below what r.sc.waiting chooses; the legend stands to the right of both.
func draw(r report, dir string) (string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	outcomes := append([]outcome{r.best}, r.controllers...)
	traces, names := make([]sim.Trace, len(outcomes)), make([]string, len(outcomes))
	for i, o := range outcomes {
		traces[i], names[i] = o.res.Trace, o.name
	}
	top, err := panel(r.sc.name+": limit", "limit", traces, palette, at(func(s sim.Sample) float64 { return float64(s.Limit) }))
	if err != nil {
		return "", err
	}
	title, ylabel, series := r.sc.waiting()
	bottom, err := panel(r.sc.name+": "+title, ylabel, traces, palette, series)
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, r.sc.name+".png")
	return path, writeStacked(path, top, bottom, legend(names, palette))
}

// waiting returns the lower panel of sc's plot: the items waiting (in the
// agent's input queue, and arrived but not yet let in); or, under a flood,
// whose backlog is endless and keeps the queue full, the throughput over
// sc's span, whose slope the backlog would only show.
func (sc scenario) waiting() (title, ylabel string, series func(sim.Trace) plotter.XYs) {
	if _, flood := sc.arrivals.(sim.Flood); flood {
		return fmt.Sprintf("throughput over the last %v (a flood: the backlog is endless, the queue full)", sc.span),
			"items done per second", throughput(sc.span)
	}
	return "items waiting (in the agent's queue and arrived, not yet let in)", "queued + backlog",
		at(func(s sim.Sample) float64 { return float64(s.Queued) + float64(s.Backlog) })
}

// at plots y of each sample.
func at(y func(sim.Sample) float64) func(sim.Trace) plotter.XYs {
	return func(t sim.Trace) plotter.XYs {
		pts := make(plotter.XYs, len(t))
		for j, s := range t {
			pts[j] = plotter.XY{X: s.At.Seconds(), Y: y(s)}
		}
		return pts
	}
}

// throughput plots the work done per second over the span before each
// sample, from the first sample a span after the start.
func throughput(span time.Duration) func(sim.Trace) plotter.XYs {
	return func(t sim.Trace) plotter.XYs {
		var pts plotter.XYs
		from := 0
		for _, s := range t {
			for t[from].At < s.At-span {
				from++
			}
			if d := s.At - t[from].At; d >= span {
				pts = append(pts, plotter.XY{X: s.At.Seconds(), Y: float64(s.Done-t[from].Done) / d.Seconds()})
			}
		}
		return pts
	}
}

// panel plots series of each trace over time, the first traces on top.
func panel(title, ylabel string, traces []sim.Trace, colours []color.Color, series func(sim.Trace) plotter.XYs) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "virtual time (s)"
	p.Y.Label.Text = ylabel
	p.Y.Tick.Marker = plainTicks{}
	for i := len(traces) - 1; i >= 0; i-- {
		l, err := plotter.NewLine(series(traces[i]))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", title, err)
		}
		l.Color = colours[i%len(colours)]
		l.Width = vg.Points(1)
		p.Add(l)
	}
	return p, nil
}

// plainTicks are gonum's default ticks, labelled without trailing zeros:
// 750, not 750.00.
type plainTicks struct{}

// Ticks returns the default ticks between lo and hi, relabelled.
func (plainTicks) Ticks(lo, hi float64) []plot.Tick {
	ticks := plot.DefaultTicks{}.Ticks(lo, hi)
	for i, t := range ticks {
		if t.Label != "" {
			ticks[i].Label = strconv.FormatFloat(t.Value, 'f', -1, 64)
		}
	}
	return ticks
}

// legend names each line, in the colour panel gives it.
func legend(names []string, colours []color.Color) plot.Legend {
	l := plot.NewLegend()
	l.Top, l.Left = true, true
	for i, name := range names {
		l.Add(name, &plotter.Line{LineStyle: vgdraw.LineStyle{Color: colours[i%len(colours)], Width: vg.Points(2)}})
	}
	return l
}

// writeStacked writes top above bottom, their time axes aligned and the
// same, and the legend to the right of both, outside the plots, to a PNG
// file at path.
func writeStacked(path string, top, bottom *plot.Plot, l plot.Legend) error {
	top.X.Min, top.X.Max = min(top.X.Min, bottom.X.Min), max(top.X.Max, bottom.X.Max)
	bottom.X.Min, bottom.X.Max = top.X.Min, top.X.Max
	img := vgimg.New(12*vg.Inch, 8*vg.Inch)
	dc := vgdraw.New(img)
	pad := 3 * vg.Millimeter
	width := l.Rectangle(dc).Size().X + 2*pad
	tiles := vgdraw.Tiles{Rows: 2, Cols: 1, PadX: vg.Millimeter, PadY: 2 * vg.Millimeter,
		PadTop: vg.Millimeter, PadBottom: vg.Millimeter, PadLeft: vg.Millimeter, PadRight: vg.Millimeter}
	canvases := plot.Align([][]*plot.Plot{{top}, {bottom}}, tiles, vgdraw.Crop(dc, 0, -width, 0, 0))
	top.Draw(canvases[0][0])
	bottom.Draw(canvases[1][0])
	l.Draw(vgdraw.Crop(dc, dc.Max.X-dc.Min.X-width+pad, 0, 0, -8*vg.Millimeter))
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
