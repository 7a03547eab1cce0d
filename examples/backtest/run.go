package main

import (
	"time"

	"github.com/evolvekit/evolve/adaptive"
	"github.com/evolvekit/evolve/agent/sim"
	"github.com/evolvekit/evolve/parallel"
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
// default (adaptive.Hill) first, then the baselines, with the settings the
// backtest gives them.
func controllers() []adaptive.Controller {
	return []adaptive.Controller{
		adaptive.Hill{},
		Santa{},
		AIMD{Timeout: 2 * base},
		Gradient2{},
	}
}

// runAdaptive runs an adaptive agent with controller c in sc.
func runAdaptive(sc scenario, c adaptive.Controller, seed uint64) (*sim.Result, error) {
	s, err := adaptive.NewState[int, int](adaptive.Config{
		Min: minLimit, Max: maxLimit, Initial: initial, Unordered: true, Controller: c, Seed: seed,
	})
	if err != nil {
		return nil, err
	}
	return sim.Run(config(sc, seed), sim.Agent[adaptive.State[int, int], int, []int, []parallel.Result[int], parallel.Result[int]]{
		State:  s,
		Evolve: adaptive.Evolve[int, int],
		Work:   echo,
		Queue:  s.Status().Queue,
		Limit:  adaptive.State[int, int].Limit,
	})
}

// runFixed runs a parallel agent with a fixed limit in sc.
func runFixed(sc scenario, limit int, seed uint64) (*sim.Result, error) {
	s, err := parallel.NewState[int, int](parallel.Config{Limit: limit, Unordered: true, MaxBatch: 1})
	if err != nil {
		return nil, err
	}
	return sim.Run(config(sc, seed), sim.Agent[parallel.State[int, int], int, []int, []parallel.Result[int], parallel.Result[int]]{
		State:  s,
		Evolve: parallel.Evolve[int, int],
		Work:   echo,
		Queue:  s.Status().Queue,
		Limit:  func(parallel.State[int, int]) int { return limit },
	})
}

// echo is the simulated work on a batch (of one item, here): one result
// per item. What it returns does not matter, only how long it takes, which
// the simulator decides.
func echo(items []int) ([]parallel.Result[int], error) {
	return make([]parallel.Result[int], len(items)), nil
}

// config is the simulator's configuration for sc.
func config(sc scenario, seed uint64) sim.Config {
	return sim.Config{Seed: seed, Capacity: sc.capacity, Arrivals: sc.arrivals, Duration: sc.duration, Every: every}
}
