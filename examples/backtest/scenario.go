package main

import (
	"time"

	"github.com/evolvekit/evolve/sim"
)

// base is the service time of one item at or below the knee.
const base = 10 * time.Millisecond

// scenario is one world every controller, and every fixed limit, is run in.
type scenario struct {
	name     string
	capacity sim.Capacity
	arrivals sim.Arrivals
	duration time.Duration
	// knee is the highest knee of the scenario: fixed limits are tried from
	// 1 to twice it, plus four.
	knee int
	// from is where convergence is counted from (the capacity step, the
	// start of light load); span the window over which throughput is
	// measured for it: long enough that the best fixed limit's throughput
	// stays within 5% from window to window, where the noise of service
	// times and arrivals allows.
	from, span time.Duration
	// light, if set, is the scenario's light load, from the instant from on:
	// drift is measured from the first moment after it with nothing queued.
	light bool
	// sharing serves the work by processor sharing (sim.Sharing): the
	// service time of the work in flight stretches when more starts.
	// Otherwise each service time is fixed when the work starts.
	sharing bool
	// failures is the probability that an item fails, at random;
	// timeout, when positive, fails the work that takes longer.
	failures float64
	timeout  time.Duration
}

// curve is a capacity with the usual base and contention.
func curve(knee int) sim.Curve {
	return sim.Curve{Base: base, Knee: knee, Contention: 0.5}
}

// best is the throughput of curve(knee) at its knee, in items a second:
// as many items at once as the knee, each as quick as alone.
func best(knee int) float64 { return float64(knee) / base.Seconds() }

// scenarios returns the scenarios, each lasting scale times its usual
// duration.
func scenarios(scale float64) []scenario {
	d := func(s float64) time.Duration { return time.Duration(s * scale * float64(time.Second)) }
	jitter := sim.Noise{Jitter: 0.3}
	noisy := curve(16)
	noisy.Noise = sim.Noise{Jitter: 0.3, Tail: 0.02}
	failing := curve(16)
	failing.Noise = jitter
	flat := curve(8)
	flat.Contention = 0
	fifth := sim.Steady{Rate: 0.2 * best(8), Poisson: true}
	return []scenario{
		{name: "knee8", capacity: curve(8), arrivals: sim.Flood{}, duration: d(30), knee: 8, span: d(0.25)},
		{name: "knee32", capacity: curve(32), arrivals: sim.Flood{}, duration: d(15), knee: 32, span: d(0.5)},
		{name: "step16to4", capacity: sim.Step{At: d(15), Before: curve(16), After: curve(4)}, arrivals: sim.Flood{},
			duration: d(30), knee: 16, from: d(15), span: d(0.5)},
		{name: "step4to16", capacity: sim.Step{At: d(15), Before: curve(4), After: curve(16)}, arrivals: sim.Flood{},
			duration: d(30), knee: 16, from: d(15), span: d(0.5)},
		{name: "flat8", capacity: flat, arrivals: sim.Flood{}, duration: d(30), knee: 8, span: d(0.25)},
		{name: "gradual16", capacity: sim.Gradual{Base: base, Peak: 16}, arrivals: sim.Flood{}, duration: d(30), knee: 16, span: d(0.5)},
		{name: "light", capacity: curve(8), arrivals: fifth, duration: d(30), knee: 8, span: d(5), light: true},
		{name: "busy-then-light", capacity: curve(8), duration: d(30), knee: 8, from: d(5), span: d(5), light: true,
			arrivals: sim.Switch{At: d(5), Before: sim.Steady{Rate: 1.2 * best(8), Poisson: true}, After: fifth}},
		{name: "santa", capacity: curve(8), arrivals: sim.Batches{Every: 50 * time.Millisecond, Max: 76},
			duration: d(30), knee: 8, span: d(10)},
		{name: "noisy", capacity: noisy, arrivals: sim.Flood{}, duration: d(30), knee: 16, span: d(2)},
		{name: "failures", capacity: failing, arrivals: sim.Flood{}, duration: d(30), knee: 16, span: d(2),
			failures: 0.02, timeout: 4 * base},
		{name: "sharing8", capacity: curve(8), arrivals: sim.Flood{}, duration: d(30), knee: 8, span: d(0.25), sharing: true},
		{name: "sharing-step16to4", capacity: sim.Step{At: d(15), Before: curve(16), After: curve(4)}, arrivals: sim.Flood{},
			duration: d(30), knee: 16, from: d(15), span: d(0.5), sharing: true},
	}
}
