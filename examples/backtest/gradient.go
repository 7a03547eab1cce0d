package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/evolvekit/evolve/adaptive"
)

// Gradient2 follows Netflix's Gradient2Limit as the library has it now
// (with its RTT tolerance): it compares the last service time (short) with
// a long-term one (long: a plain mean over the first ten samples, then an
// exponential average over LongWindow samples) and shrinks the limit when
// the short term is slower than Tolerance times the long term, while
// letting it grow by QueueSize when it is not:
//
//	gradient = clamp(Tolerance·long/short, 0.5, 1)
//	limit    = (1-Smoothing)·limit + Smoothing·(limit·gradient + QueueSize)
//
// When the long-term latency is more than twice the short-term one (load
// has just dropped), the long-term one decays by 5%; and when the work ran
// with fewer than half the limit in flight, the limit stays as it is. Per
// completion, it is fed every sample; wrapped in [Windowed], one per window
// (the window's mean service time), which is how the library's README sets
// it up.
//
// Gradient2's zero value is ready to use, with the library's defaults
// below.
type Gradient2 struct {
	// QueueSize is how much the limit may grow per sample while latency is
	// steady; 0 means 4.
	QueueSize float64
	// Smoothing is how much of the new limit is taken each sample; 0 means
	// 0.2.
	Smoothing float64
	// LongWindow is the number of samples the long-term latency averages
	// over; 0 means 600.
	LongWindow int
	// Tolerance is how much slower than the long-term latency the short
	// term may be before the limit shrinks; 0 means 1.5, otherwise at
	// least 1.
	Tolerance float64

	limit float64 // the estimated limit; 0 before the first sample
	long  float64 // the long-term latency, in nanoseconds
	n     int     // samples in the long-term average so far
}

// Name returns "gradient2".
func (Gradient2) Name() string { return "gradient2" }

// View reports the phase "gradient" and the long-term latency.
func (g Gradient2) View() adaptive.View {
	return adaptive.View{Phase: "gradient", Latency: time.Duration(g.long)}
}

// String reports the settings, as the sweep prints them.
func (g Gradient2) String() string {
	return fmt.Sprintf("queue=%v smoothing=%v long=%d tolerance=%v",
		or(g.QueueSize, 4), or(g.Smoothing, 0.2), or(g.LongWindow, 600), or(g.Tolerance, 1.5))
}

// Validate reports a setting out of range.
func (g Gradient2) Validate() error {
	if !(g.QueueSize >= 0) || !(g.Smoothing >= 0 && g.Smoothing <= 1) || g.LongWindow < 0 ||
		g.Tolerance != 0 && !(g.Tolerance >= 1) {
		return invalid("gradient2: queue size, smoothing (at most 1) and long window must not be negative, and tolerance must be at least 1, got %v, %v, %d and %v",
			g.QueueSize, g.Smoothing, g.LongWindow, g.Tolerance)
	}
	return nil
}

// Observe updates the latencies and the limit.
func (g Gradient2) Observe(s adaptive.Sample, _ *rand.Rand) (adaptive.Controller, int) {
	if g.limit == 0 || int(g.limit) != s.Limit {
		g.limit = float64(s.Limit)
	}
	short := math.Max(float64(s.Service), 1)
	g = g.average(short)
	long := g.long
	if long/short > 2 {
		g.long *= 0.95
	}
	if float64(s.Started) < g.limit/2 {
		return g, int(g.limit)
	}
	gradient := math.Max(0.5, math.Min(1, or(g.Tolerance, 1.5)*long/short))
	smoothing := or(g.Smoothing, 0.2)
	next := g.limit*gradient + or(g.QueueSize, 4)
	next = g.limit*(1-smoothing) + next*smoothing
	g.limit = math.Max(float64(s.Min), math.Min(float64(s.Max), next))
	return g, int(g.limit)
}

// average folds rtt into the long-term latency: a plain mean over the first
// ten samples, then an exponential average over LongWindow.
func (g Gradient2) average(rtt float64) Gradient2 {
	if g.n < 10 {
		g.n++
		g.long += (rtt - g.long) / float64(g.n)
		return g
	}
	f := 2 / (float64(or(g.LongWindow, 600)) + 1)
	g.long = g.long*(1-f) + rtt*f
	return g
}
