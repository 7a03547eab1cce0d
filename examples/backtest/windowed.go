package main

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/evolvekit/evolve/adaptive"
)

// Windowed is Netflix's WindowedLimit around another controller: instead of
// every sample, it feeds the controller one per sample window, with the
// window's mean service time, the most work it saw in flight, and whether
// any of its samples failed (a drop).
//
// Samples quicker than MinRTT are ignored. A failed sample counts as a drop
// and adds nothing else. A window closes at the first sample that ends
// after its deadline, provided it holds more than Size samples that did
// not fail (otherwise it goes on); the next deadline is then that sample's
// end plus twice the window's least service time, brought within MinWindow
// and MaxWindow. The first window has no deadline.
//
// The zero Windowed is not usable: set Limit. The other settings' zero
// values are the library's defaults below, and it enforces the library's
// bounds (windows of at least 100ms, and a Size of at least 10).
type Windowed struct {
	// Limit is the controller fed one sample per window. Required.
	Limit adaptive.Controller
	// MinWindow and MaxWindow bound a window's length; 0 means 1 second
	// each.
	MinWindow, MaxWindow time.Duration
	// Size is the number of samples a window needs, exclusive; 0 means 10.
	Size int
	// MinRTT is the service time below which samples are ignored; 0 means
	// 100µs.
	MinRTT time.Duration

	deadline time.Time // when the window may close; zero for the first
	win      window
}

// window is a sample window's aggregate.
type window struct {
	n        int           // samples that did not fail
	sum, min time.Duration // of their service times
	inFlight int           // the most work in flight
	drop     bool          // whether a sample failed
}

// Name returns the controller's name with "-windowed".
func (w Windowed) Name() string { return w.Limit.Name() + "-windowed" }

// View reports the controller's view.
func (w Windowed) View() adaptive.View { return w.Limit.View() }

// String reports the settings, as the sweep prints them.
func (w Windowed) String() string {
	return fmt.Sprintf("%v window=%v-%v size=%d", w.Limit, or(w.MinWindow, time.Second),
		or(w.MaxWindow, time.Second), or(w.Size, 10))
}

// Validate reports a missing controller, a setting out of the library's
// bounds, or the controller's own bad setting.
func (w Windowed) Validate() error {
	if w.Limit == nil {
		return invalid("windowed: the limit to feed must not be nil")
	}
	if w.MinWindow != 0 && w.MinWindow < 100*time.Millisecond || w.MaxWindow != 0 && w.MaxWindow < 100*time.Millisecond ||
		w.Size != 0 && w.Size < 10 || w.MinRTT < 0 {
		return invalid("windowed: windows must be at least 100ms, the size at least 10 and the least RTT not negative, got %v, %v, %d and %v",
			w.MinWindow, w.MaxWindow, w.Size, w.MinRTT)
	}
	if v, ok := w.Limit.(interface{ Validate() error }); ok {
		return v.Validate()
	}
	return nil
}

// Observe adds s to the window and, when the window closes, feeds the
// controller.
func (w Windowed) Observe(s adaptive.Sample, r *rand.Rand) (adaptive.Controller, int) {
	if s.Service < or(w.MinRTT, 100*time.Microsecond) {
		return w, s.Limit
	}
	w.win = w.win.add(s)
	if !w.deadline.IsZero() && !s.At.After(w.deadline) || w.win.n <= or(w.Size, 10) {
		return w, s.Limit
	}
	cur := w.win
	w.win = window{}
	w.deadline = s.At.Add(min(max(2*cur.min, or(w.MinWindow, time.Second)), or(w.MaxWindow, time.Second)))
	agg := s
	agg.Service = cur.sum / time.Duration(cur.n)
	agg.Started, agg.InFlight, agg.Failed = cur.inFlight, cur.inFlight, cur.drop
	var limit int
	w.Limit, limit = w.Limit.Observe(agg, r)
	return w, limit
}

// add counts s in the window.
func (w window) add(s adaptive.Sample) window {
	w.inFlight = max(w.inFlight, s.Started)
	if s.Failed {
		w.drop = true
		return w
	}
	if w.n == 0 || s.Service < w.min {
		w.min = s.Service
	}
	w.n++
	w.sum += s.Service
	return w
}
