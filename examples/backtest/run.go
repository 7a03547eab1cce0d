package main

import (
	"time"

	"github.com/evolvekit/evolve/adaptive"
	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/parallel"
	"github.com/evolvekit/evolve/sim"
	"github.com/evolvekit/evolve/spawn"
)

// The bounds every controller works within, and where each starts.
const (
	minLimit = 1
	maxLimit = 128
	initial  = 4
)

// every is the trace's sampling period.
const every = 10 * time.Millisecond

// controllers returns the controllers compared, the adaptive agent's
// default (adaptive.Hill, with its defaults) first, then the baselines,
// with the settings the sweep chose for them (see sweep.go: go run
// ./examples/backtest -sweep prints the grid and its choice).
func controllers() []adaptive.Controller {
	return []adaptive.Controller{
		adaptive.Hill{},
		Santa{Rate: 0.05, Explore: 0.01},
		AIMD{Timeout: 15 * time.Millisecond, Backoff: 0.5},
		Windowed{Limit: AIMD{Timeout: 11 * time.Millisecond, Backoff: 0.9}, MinWindow: 100 * time.Millisecond},
		Gradient2{QueueSize: 2, Smoothing: 0.2, Tolerance: 1},
		Windowed{Limit: Gradient2{QueueSize: 1, Smoothing: 1, Tolerance: 1}, MinWindow: 100 * time.Millisecond},
		Vegas{Smoothing: 0.2, ProbeMultiplier: 3000},
		Windowed{Limit: Vegas{ProbeMultiplier: 300}, MinWindow: 100 * time.Millisecond},
	}
}

// trial is one run: the simulator's result and the meter's measurements.
type trial struct {
	res *sim.Result
	m   *meter
}

// goodput is the results that did not fail, per second.
func (r trial) goodput() float64 {
	if r.res.End <= 0 {
		return 0
	}
	return float64(r.m.good) / r.res.End.Seconds()
}

// trim returns t without what the meter kept only while the run went on.
func (t trial) trim() trial {
	t.m.posted, t.m.started, t.m.arrived = nil, nil, nil
	return t
}

// runAdaptive runs an adaptive agent with controller c in sc.
func runAdaptive(sc scenario, c adaptive.Controller, seed uint64) (trial, error) {
	s, err := adaptive.NewState[int, int](adaptive.Config{
		Min: minLimit, Max: maxLimit, Initial: initial, Unordered: true, Controller: c, Seed: seed,
	})
	if err != nil {
		return trial{}, err
	}
	return runMetered[adaptive.Status](sc, seed, "adaptive", s, adaptive.Evolve[int, int], s.Status().Queue,
		func(st any) int { return st.(adaptive.Status).Limit })
}

// runFixed runs a parallel agent with a fixed limit in sc.
func runFixed(sc scenario, limit int, seed uint64) (trial, error) {
	s, err := parallel.NewState[int, int](parallel.Config{Limit: limit, Unordered: true, MaxBatch: 1})
	if err != nil {
		return trial{}, err
	}
	return runMetered[parallel.Status](sc, seed, "parallel", s, parallel.Evolve[int, int], s.Status().Queue,
		func(any) int { return limit })
}

// runMetered runs, in sc, the agent of state s and evolve, whose status
// is a V and whose limit the trace reads with limit, metered as it goes.
func runMetered[V, S any](sc scenario, seed uint64, name string, s S, evolve agent.Evolve[S], queue int, limit func(any) int) (trial, error) {
	m := newMeter(sc, seed)
	stage, err := spawn.Stage[int, V](spawn.Spec[S, []int, results, parallel.Result[int]]{
		Name: name, State: s, Evolve: metered(m, evolve), Queue: queue, Work: m.work,
	})
	if err != nil {
		return trial{}, err
	}
	res, err := sim.Run(m.config(), sim.Chain[int, parallel.Result[int]]{Stage: stage, Item: item, Limit: limit})
	return trial{res: res, m: m}, err
}
