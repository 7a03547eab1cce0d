package main

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/sim"
	"github.com/evolvekit/evolve/spawn"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// world is a scenario of one second, knee 8, with the arrivals a.
func world(a sim.Arrivals) scenario {
	return scenario{name: "test", capacity: curve(8), arrivals: a, duration: time.Second, knee: 8, span: time.Second}
}

func TestEndToEndUnderAFloodCountsTheQueueWait(t *testing.T) {
	r, err := runFixed(world(sim.Flood{}), 8, 1)
	require.NoError(t, err)
	// Each item waits for the 64 ahead of it in the queue, at 800 a second,
	// then takes 10ms.
	assert.InDelta(t, 90*time.Millisecond, r.m.e2e.Quantile(0.99), float64(3*time.Millisecond))
	assert.InEpsilon(t, 10*time.Millisecond, r.m.service.Quantile(0.99), 0.02)
	assert.Equal(t, r.res.Emitted, r.m.good, "nothing fails")
	assert.Equal(t, r.res.Emitted, r.m.e2e.Count())
}

func TestEndToEndCountsTheWaitOutsideTheQueue(t *testing.T) {
	// 200 items at once, every second: the queue takes 64, the rest wait
	// outside; the last of them is done after 200/800 s.
	r, err := runFixed(world(sim.Bursts{Every: time.Second, Size: 200}), 8, 1)
	require.NoError(t, err)
	assert.InDelta(t, 250*time.Millisecond, r.m.e2e.Quantile(0.999), float64(5*time.Millisecond))
	quiet, err := runFixed(world(sim.Steady{Rate: 100}), 8, 1)
	require.NoError(t, err)
	assert.InEpsilon(t, 10*time.Millisecond, quiet.m.e2e.Quantile(0.99), 0.02, "no wait at all at an eighth of the capacity")
}

func TestFailuresAreDrawnByItemAndCountAgainstGoodput(t *testing.T) {
	sc := world(sim.Flood{})
	sc.failures = 0.1
	m, again, other := newMeter(sc, 1), newMeter(sc, 1), newMeter(sc, 2)
	failed, same := 0, 0
	for it := range 10000 {
		if m.fails(it) {
			failed++
		}
		if m.fails(it) == other.fails(it) {
			same++
		}
		assert.Equal(t, m.fails(it), again.fails(it), "the same item fails in every run with a seed")
	}
	assert.Less(t, same, 9500, "and other items with another seed")
	assert.InDelta(t, 1000, failed, 100)
	r, err := runFixed(sc, 8, 1)
	require.NoError(t, err)
	assert.InDelta(t, 0.9, float64(r.m.good)/float64(r.res.Emitted), 0.02)
}

func TestWorkPastTheTimeoutFails(t *testing.T) {
	sc := world(sim.Flood{})
	sc.timeout = 15 * time.Millisecond
	r, err := runFixed(sc, 8, 1)
	require.NoError(t, err)
	assert.Equal(t, r.res.Emitted, r.m.good, "10ms at the knee: within the timeout")
	r, err = runFixed(sc, 12, 1)
	require.NoError(t, err)
	assert.Equal(t, int64(10), r.m.good,
		"18.75ms at 12 in flight: every item times out but the first ten, started with 1 to 10 in flight (14.1ms at 10)")
}

// script is an agent that starts a piece of work at once and another 5ms
// later (by a timer), and records when each is done.
type script struct{ done map[uint64]time.Duration }

func (p script) evolve(s int, m agent.Msg) (int, []agent.Effect) {
	switch m := m.(type) {
	case agent.Pull:
		return s, []agent.Effect{agent.Start[[]int]{ID: 1, Work: []int{0}}, agent.Timer{Tag: 1, Delay: 5 * time.Millisecond}}
	case agent.Tick:
		return s, []agent.Effect{agent.Start[[]int]{ID: 2, Work: []int{1}}}
	case agent.Done[results]:
		p.done[m.ID] = m.At.Sub(sim.Epoch)
		return s, nil
	}
	return s, []agent.Effect{agent.Unhandled{}}
}

func TestProcessorSharingStretchesTheWorkInFlight(t *testing.T) {
	for _, sharing := range []bool{false, true} {
		sc := scenario{capacity: sim.Curve{Base: 10 * time.Millisecond, Knee: 1}, arrivals: sim.Bursts{Every: time.Hour},
			duration: time.Second, sharing: sharing}
		p := script{done: map[uint64]time.Duration{}}
		m := newMeter(sc, 1)
		stage, err := spawn.Stage[int, struct{}](spawn.Spec[int, []int, results, results]{Evolve: metered(m, p.evolve), Queue: 1, Work: m.work})
		require.NoError(t, err)
		res, err := sim.Run(m.config(), sim.Chain[int, results]{Stage: stage})
		require.NoError(t, err)
		assert.Equal(t, int64(2), res.Started)
		assert.Equal(t, int64(2), m.service.Count())
		if !sharing {
			// Fixed when each starts: 10ms alone; 20ms for the second,
			// which started with two in flight.
			assert.Equal(t, map[uint64]time.Duration{1: 10 * time.Millisecond, 2: 25 * time.Millisecond}, p.done)
			continue
		}
		// Shared: the first slows to half speed when the second starts, and
		// the second speeds up when the first is done.
		assert.Equal(t, map[uint64]time.Duration{1: 15 * time.Millisecond, 2: 20 * time.Millisecond}, p.done)
		assert.Equal(t, 15*time.Millisecond, m.service.Mean(), "each took 15ms")
	}
}

func TestTheArrivalLogTellsWhenEachItemArrived(t *testing.T) {
	a := arrivalLog{of: sim.Bursts{Every: 5 * time.Millisecond, Size: 3}}
	r := rand.New(rand.NewPCG(1, 2))
	a.Next(r, 0)
	a.Next(r, 5*time.Millisecond)
	assert.Equal(t, time.Duration(0), a.at(2))
	assert.Equal(t, 5*time.Millisecond, a.at(3))
	assert.Equal(t, 5*time.Millisecond, a.at(5))
}
