package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sort"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/parallel"
	"github.com/evolvekit/evolve/sim"
)

// results is what a piece of work (of one item, here) returns.
type results = []parallel.Result[int]

// meter wraps an agent's evolve in a run, to measure what the simulator
// does not, and to model what its work does not:
//
//   - each item's time from arrival to its result (end to end: the backlog
//     and queue wait and the service time; under a flood, where every item
//     arrives at the start, from the moment it entered the agent's queue);
//   - goodput: the results that did not fail;
//   - failures: an item fails at random, by its number, with the
//     scenario's probability;
//   - timeouts: work that took longer than the scenario's timeout fails
//     (as in the simulator, the work still takes its time).
//
// A meter serves one run; its evolve is not pure (it records into the
// meter), which is fine for a measurement, and it is not safe for
// concurrent use.
type meter struct {
	sc      scenario
	seed    uint64
	arrived *arrivalLog
	posted  []time.Duration          // by item number: when it entered the agent's queue
	started map[uint64]time.Duration // the work in flight: ID to when it started

	service, e2e sim.Histogram
	good         int64
}

// newMeter returns the meter of one run in sc.
func newMeter(sc scenario, seed uint64) *meter {
	m := &meter{sc: sc, seed: seed, started: make(map[uint64]time.Duration)}
	if _, flood := sc.arrivals.(sim.Flood); !flood {
		m.arrived = &arrivalLog{of: sc.arrivals}
	}
	return m
}

// config is the simulator's configuration for the run: the agent's work
// follows the scenario's capacity, by processor sharing if it says so.
func (m *meter) config() sim.Config {
	capacity := m.sc.capacity
	if m.sc.sharing {
		capacity = sim.Sharing{Capacity: capacity.(sim.Shareable)}
	}
	cfg := sim.Config{Seed: m.seed, Capacity: []sim.Capacity{capacity}, Arrivals: m.sc.arrivals, Duration: m.sc.duration, Every: every}
	if m.arrived != nil {
		cfg.Arrivals = m.arrived
	}
	return cfg
}

// item returns item number n: its number, by which work fails or not.
func item(n uint64) int { return int(n) }

// work is what the work on a batch of items returns: a result per item,
// failed for the items the scenario fails.
func (m *meter) work(_ context.Context, items []int) (results, error) {
	out := make(results, len(items))
	for i, it := range items {
		if m.fails(it) {
			out[i].Err = errFailed
		}
	}
	return out, nil
}

// errFailed is the error of an item the scenario fails.
var errFailed = fmt.Errorf("backtest: the work failed")

// fails reports whether item it fails, drawn from its number and the seed.
func (m *meter) fails(it int) bool {
	if m.sc.failures == 0 {
		return false
	}
	x := uint64(it)*0x9e3779b97f4a7c15 ^ m.seed*0xbf58476d1ce4e5b9
	x ^= x >> 31
	x *= 0x94d049bb133111eb
	x ^= x >> 29
	return float64(x>>11)/(1<<53) < m.sc.failures
}

// metered wraps evolve with m.
func metered[S any](m *meter, evolve agent.Evolve[S]) agent.Evolve[S] {
	return func(s S, msg agent.Msg) (S, []agent.Effect) {
		var now time.Duration
		switch x := msg.(type) {
		case agent.Input[int]:
			now = x.At.Sub(sim.Epoch)
			for range x.Items {
				m.posted = append(m.posted, now)
			}
		case agent.Done[results]:
			now = x.At.Sub(sim.Epoch)
			msg = m.done(x, now)
		case agent.Tick:
			now = x.At.Sub(sim.Epoch)
		case agent.Pull:
			now = x.At.Sub(sim.Epoch)
		}
		s, fx := evolve(s, msg)
		m.effects(fx, now)
		return s, fx
	}
}

// done records the service time of the work x reports, and fails its
// items if it ran past the scenario's timeout.
func (m *meter) done(x agent.Done[results], now time.Duration) agent.Done[results] {
	at, ok := m.started[x.ID]
	if !ok {
		return x
	}
	delete(m.started, x.ID)
	d := now - at
	m.service.Add(d)
	if m.sc.timeout > 0 && d > m.sc.timeout {
		res := make(results, len(x.Result))
		for i, r := range x.Result {
			r.Err = fmt.Errorf("backtest: ran for %v: %w", d, context.DeadlineExceeded)
			res[i] = r
		}
		x.Result = res
	}
	return x
}

// effects records what the agent asked for: the work it started and the
// results it emitted.
func (m *meter) effects(fx []agent.Effect, now time.Duration) {
	for _, e := range fx {
		switch e := e.(type) {
		case agent.Start[[]int]:
			m.started[e.ID] = now
		case agent.Emit[parallel.Result[int]]:
			for _, v := range e.Values {
				m.e2e.Add(now - m.origin(v.Seq))
				if v.Err == nil {
					m.good++
				}
			}
		}
	}
}

// origin returns the instant item seq arrived, or, under a flood, entered
// the agent's queue.
func (m *meter) origin(seq uint64) time.Duration {
	if m.arrived != nil {
		return m.arrived.at(seq)
	}
	return m.posted[seq]
}

// arrivalLog wraps the scenario's arrivals and keeps when the items
// arrived, so that the meter can tell how long each waited before it
// entered the agent's queue. Items are posted oldest first, so item n is
// the n-th to arrive.
type arrivalLog struct {
	of    sim.Arrivals
	batch []arrival
	total uint64
}

// arrival is a batch of items that arrived at one instant, numbered up to
// end (exclusive).
type arrival struct {
	end uint64
	at  time.Duration
}

// Next asks the scenario's arrivals and records what arrives.
func (a *arrivalLog) Next(r *rand.Rand, at time.Duration) (int, time.Duration) {
	n, wait := a.of.Next(r, at)
	if n > 0 {
		a.total += uint64(n)
		a.batch = append(a.batch, arrival{end: a.total, at: at})
	}
	return n, wait
}

// at returns the instant item n arrived.
func (a *arrivalLog) at(n uint64) time.Duration {
	i := sort.Search(len(a.batch), func(i int) bool { return a.batch[i].end > n })
	if i == len(a.batch) {
		return 0
	}
	return a.batch[i].at
}
