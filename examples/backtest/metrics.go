package main

import (
	"math"
	"time"

	"github.com/evolvekit/evolve/sim"
)

// tolerance is how close throughput must stay to its final value to count
// as converged.
const tolerance = 0.05

// converge returns the completions, counted from the instant from, until
// throughput measured over windows of span stays within tolerance of its
// final value (its mean over the last fifth of the run after from): the
// completions up to the start of the last window that strayed further (so
// about when the last straying happened), or 0 if none did.
func converge(t sim.Trace, from, span time.Duration) int64 {
	i0 := index(t, from)
	end := t[len(t)-1]
	tail := index(t, end.At-(end.At-from)/5)
	final := rate(t[tail], end)
	if final <= 0 {
		return 0
	}
	start := t[i0]
	for i := len(t) - 1; i >= i0; i-- {
		j := index(t, t[i].At-span)
		if j < i0 {
			break
		}
		if math.Abs(rate(t[j], t[i])/final-1) > tolerance {
			return t[j].Emitted - start.Emitted
		}
	}
	return 0
}

// drift returns the largest rise of the limit after the first sample at or
// after from with nothing queued or waiting: how far the limit crept up
// under light load.
func drift(t sim.Trace, from time.Duration) int {
	i := index(t, from)
	for i < len(t) && (t[i].Queued > 0 || t[i].Backlog > 0) {
		i++
	}
	if i == len(t) {
		return 0
	}
	top := t[i].Limit
	for _, s := range t[i:] {
		top = max(top, s.Limit)
	}
	return top - t[i].Limit
}

// rate is the throughput between two samples, per second.
func rate(a, b sim.Sample) float64 {
	if b.At <= a.At {
		return 0
	}
	return float64(b.Emitted-a.Emitted) / (b.At - a.At).Seconds()
}

// index returns the first sample at or after at.
func index(t sim.Trace, at time.Duration) int {
	lo, hi := 0, len(t)
	for lo < hi {
		m := (lo + hi) / 2
		if t[m].At < at {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return min(lo, len(t)-1)
}
