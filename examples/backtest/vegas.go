package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/evolvekit/evolve/adaptive"
)

// Vegas follows Netflix's VegasLimit, the library's default limit, after
// TCP Vegas. It keeps the least service time seen (the no-load RTT) and
// estimates the queue the limit builds as
//
//	queue = ceil(limit × (1 - noLoad/rtt))
//
// With l = max(1, floor(log10(limit))): when the queue is at most l, the
// limit grows by Beta×l; below Alpha×l by l; above Beta×l it shrinks by l;
// in between it stays. A drop (a failed sample) shrinks it by l. The new
// limit is smoothed: (1-Smoothing)·limit + Smoothing·new. When the work ran
// with fewer than half the limit in flight, the limit stays as it is.
//
// Every ProbeMultiplier × limit × j samples, with j drawn between 0.5 and 1
// from the agent's random source each time, it forgets the no-load RTT and
// takes the sample's service time as the new one (a probe), so that it can
// follow a rise of the service time.
//
// Per completion, it is fed every sample; wrapped in [Windowed], one per
// window (the window's mean service time).
//
// Vegas's zero value is ready to use, with the library's defaults below.
type Vegas struct {
	// Alpha and Beta scale log10 of the limit into the queue below which it
	// grows and above which it shrinks; 0 means 3 and 6.
	Alpha, Beta float64
	// Smoothing is how much of the new limit is taken each update; 0 means
	// 1 (all of it).
	Smoothing float64
	// ProbeMultiplier sets how often the no-load RTT is probed, in samples
	// per unit of the limit; 0 means 30.
	ProbeMultiplier int

	limit  float64       // the estimated limit; 0 before the first sample
	noLoad time.Duration // the least service time seen since the last probe
	count  int           // samples since the last probe
	jitter float64       // this probe's jitter, in [0.5, 1)
}

// Name returns "vegas".
func (Vegas) Name() string { return "vegas" }

// View reports the phase "vegas" and the no-load service time.
func (v Vegas) View() adaptive.View { return adaptive.View{Phase: "vegas", Latency: v.noLoad} }

// String reports the settings, as the sweep prints them.
func (v Vegas) String() string {
	return fmt.Sprintf("alpha=%v beta=%v smoothing=%v probe=%d",
		or(v.Alpha, 3), or(v.Beta, 6), or(v.Smoothing, 1), or(v.ProbeMultiplier, 30))
}

// Validate reports a setting out of range.
func (v Vegas) Validate() error {
	if !(v.Alpha >= 0) || !(v.Beta >= 0) || or(v.Beta, 6) < or(v.Alpha, 3) ||
		!(v.Smoothing >= 0 && v.Smoothing <= 1) || v.ProbeMultiplier < 0 {
		return invalid("vegas: alpha must not be negative nor above beta, smoothing must be between 0 and 1 and the probe multiplier not negative, got %v, %v, %v and %d",
			v.Alpha, v.Beta, v.Smoothing, v.ProbeMultiplier)
	}
	return nil
}

// Observe probes, or learns a lower no-load RTT, or updates the limit.
func (v Vegas) Observe(s adaptive.Sample, r *rand.Rand) (adaptive.Controller, int) {
	if v.limit == 0 || int(v.limit) != s.Limit {
		v.limit = float64(s.Limit)
	}
	if v.jitter == 0 {
		v.jitter = 0.5 + r.Float64()/2
	}
	rtt := max(s.Service, 1)
	v.count++
	if v.jitter*float64(or(v.ProbeMultiplier, 30))*v.limit <= float64(v.count) {
		v.jitter, v.count, v.noLoad = 0.5+r.Float64()/2, 0, rtt
		return v, int(v.limit)
	}
	if v.noLoad == 0 || rtt < v.noLoad {
		v.noLoad = rtt
		return v, int(v.limit)
	}
	return v.update(rtt, s)
}

// update moves the limit by the queue the service time rtt shows.
func (v Vegas) update(rtt time.Duration, s adaptive.Sample) (Vegas, int) {
	queue := int(math.Ceil(v.limit * (1 - float64(v.noLoad)/float64(rtt))))
	l := log10(int(v.limit))
	var next float64
	switch {
	case s.Failed:
		next = v.limit - l
	case 2*float64(s.Started) < v.limit:
		return v, int(v.limit)
	case float64(queue) <= l:
		next = v.limit + or(v.Beta, 6)*l
	case float64(queue) < or(v.Alpha, 3)*l:
		next = v.limit + l
	case float64(queue) > or(v.Beta, 6)*l:
		next = v.limit - l
	default:
		return v, int(v.limit)
	}
	next = math.Max(float64(s.Min), math.Min(float64(s.Max), next))
	smoothing := or(v.Smoothing, 1)
	v.limit = (1-smoothing)*v.limit + smoothing*next
	return v, int(v.limit)
}

// log10 is the library's Log10RootFunction: max(1, floor(log10(n))).
func log10(n int) float64 {
	if n < 10 {
		return 1
	}
	return math.Max(1, math.Floor(math.Log10(float64(n))))
}
