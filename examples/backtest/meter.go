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

// shareTag is the tag of the meter's timer, which wakes it when a piece of
// work served by processor sharing is due to finish. The agents run here
// arm no timer of their own (they have no retries).
const shareTag = 1<<63 + 0x5a7e

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
//     (as in the simulator, the work still takes its time);
//   - processor sharing: when the scenario asks for it, the meter serves
//     the work itself, with a sim.Sharing, and delivers each Done at the
//     instant it finishes, by a timer.
//
// A meter serves one run; its evolve is not pure (it records into the
// meter), which is fine for a measurement, and it is not safe for
// concurrent use.
type meter struct {
	sc      scenario
	seed    uint64
	arrived *arrivalLog
	posted  []time.Duration // by item number: when it entered the agent's queue
	started map[uint64]flight
	share   *sim.Sharing
	rng     *rand.Rand

	armed bool          // whether the timer is set
	wake  time.Duration // for when

	service, e2e sim.Histogram
	good         int64
}

// flight is a piece of work in flight: when it started, and what it
// returns.
type flight struct {
	at  time.Duration
	res results
	err error
}

// newMeter returns the meter of one run in sc.
func newMeter(sc scenario, seed uint64) *meter {
	m := &meter{sc: sc, seed: seed, started: make(map[uint64]flight)}
	if _, flood := sc.arrivals.(sim.Flood); !flood {
		m.arrived = &arrivalLog{of: sc.arrivals}
	}
	if sc.sharing {
		m.share = &sim.Sharing{Capacity: sc.capacity.(sim.Shareable)}
		m.rng = rand.New(rand.NewPCG(seed, 0x5a7e))
	}
	return m
}

// config is the simulator's configuration for the run.
func (m *meter) config() sim.Config {
	cfg := sim.Config{Seed: m.seed, Capacity: []sim.Capacity{m.sc.capacity}, Arrivals: m.sc.arrivals, Duration: m.sc.duration, Every: every}
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
			if x.Tag == shareTag {
				m.armed = false // it fired
				return finish(m, s, evolve, now)
			}
		case agent.Pull:
			now = x.At.Sub(sim.Epoch)
		}
		s, fx := evolve(s, msg)
		fx = m.effects(fx, now)
		return s, m.arm(fx, now)
	}
}

// done records the service time of the work x reports, and fails its
// items if it ran past the scenario's timeout.
func (m *meter) done(x agent.Done[results], now time.Duration) agent.Done[results] {
	f, ok := m.started[x.ID]
	if !ok {
		return x
	}
	delete(m.started, x.ID)
	d := now - f.at
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

// effects records what the agent asked for: the work it started (which
// the meter serves itself under processor sharing) and the results it
// emitted.
func (m *meter) effects(fx []agent.Effect, now time.Duration) []agent.Effect {
	out := fx[:0:0]
	for _, e := range fx {
		switch e := e.(type) {
		case agent.Start[[]int]:
			f := flight{at: now}
			if m.share != nil {
				f.res, f.err = m.work(context.Background(), e.Work)
				m.share.Start(m.rng, now, e.ID)
				m.started[e.ID] = f
				continue
			}
			m.started[e.ID] = f
		case agent.Emit[parallel.Result[int]]:
			for _, v := range e.Values {
				m.e2e.Add(now - m.origin(v.Seq))
				if v.Err == nil {
					m.good++
				}
			}
		}
		out = append(out, e)
	}
	return out
}

// finish delivers to evolve the Done of every piece of work that processor
// sharing has finished by now.
func finish[S any](m *meter, s S, evolve agent.Evolve[S], now time.Duration) (S, []agent.Effect) {
	var out []agent.Effect
	for _, id := range m.share.Advance(now) {
		f := m.started[id]
		var fx []agent.Effect
		s, fx = evolve(s, m.done(agent.Done[results]{At: sim.Epoch.Add(now), ID: id, Result: f.res, Err: f.err}, now))
		out = append(out, m.effects(fx, now)...)
	}
	return s, m.arm(out, now)
}

// arm sets the meter's timer for the next piece of work to finish under
// processor sharing.
func (m *meter) arm(fx []agent.Effect, now time.Duration) []agent.Effect {
	if m.share == nil {
		return fx
	}
	at, ok := m.share.Next()
	switch {
	case ok == m.armed && at == m.wake:
		return fx
	case ok:
		fx = append(fx, agent.Timer{Tag: shareTag, Delay: max(at-now, 0)})
	default:
		fx = append(fx, agent.Disarm{Tag: shareTag})
	}
	m.armed, m.wake = ok, at
	return fx
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
