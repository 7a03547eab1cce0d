package sim_test

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/evolvekit/evolve/sim"
	"github.com/stretchr/testify/assert"
)

const ms = time.Millisecond

// next returns the instant Sharing wakes up at, failing if it has nothing
// in flight.
func next(t *testing.T, s *sim.Sharing) time.Duration {
	t.Helper()
	at, ok := s.Next()
	assert.True(t, ok, "work in flight")
	return at
}

func TestSharingStretchesTheWorkInFlightWhenMoreStarts(t *testing.T) {
	// Knee 1 and no contention: n in flight each go n times slower.
	s := sim.Sharing{Capacity: sim.Curve{Base: 10 * ms, Knee: 1}}
	r := rand.New(rand.NewPCG(1, 2))
	s.Start(r, 0, 1)
	assert.Equal(t, 10*ms, next(t, &s), "alone, it would take its 10ms")
	s.Start(r, 5*ms, 2)
	assert.Equal(t, 2, s.Len())
	// 1 has 5ms of work left, done at half speed: it finishes at 15ms, not
	// at 10ms as a service time fixed at its start would have it.
	assert.Equal(t, 15*ms, next(t, &s))
	assert.Empty(t, s.Advance(15*ms-1))
	assert.Equal(t, []uint64{1}, s.Advance(15*ms))
	// 2 did 5ms of its work at half speed and does the rest alone; a
	// service time fixed at its start (two in flight) would end it at 25ms.
	assert.Equal(t, 20*ms, next(t, &s))
	assert.Equal(t, []uint64{2}, s.Advance(time.Second))
	_, ok := s.Next()
	assert.False(t, ok)
}

func TestSharingAtOneConcurrencyTakesTheCapacitysServiceTime(t *testing.T) {
	c := sim.Curve{Base: 10 * ms, Knee: 2, Contention: 0.5}
	s := sim.Sharing{Capacity: c}
	r := rand.New(rand.NewPCG(1, 2))
	for id := range uint64(4) {
		s.Start(r, 0, id)
	}
	want := c.Service(r, 0, 4)
	assert.Equal(t, 30*ms, want, "twice the knee: 2 × 1.5 × Base")
	assert.Equal(t, want, next(t, &s))
	assert.Equal(t, []uint64{0, 1, 2, 3}, s.Advance(want), "all at once, in the order they started")
}

func TestSharingAppliesACapacityStepToTheWorkInFlight(t *testing.T) {
	s := sim.Sharing{Capacity: sim.Step{At: 5 * ms, Before: sim.Curve{Base: 10 * ms, Knee: 2}, After: sim.Curve{Base: 10 * ms, Knee: 1}}}
	r := rand.New(rand.NewPCG(1, 2))
	s.Start(r, 0, 7)
	s.Start(r, 0, 8)
	assert.Equal(t, 5*ms, next(t, &s), "it wakes up at the step")
	assert.Empty(t, s.Advance(5*ms))
	// 5ms of work left each, now at half speed.
	assert.Equal(t, 15*ms, next(t, &s))
	assert.Equal(t, []uint64{7, 8}, s.Advance(15*ms))
}

func TestSharingReportsWorkThatFinishedBeforeAStart(t *testing.T) {
	s := sim.Sharing{Capacity: sim.Curve{Base: 10 * ms, Knee: 4}}
	r := rand.New(rand.NewPCG(1, 2))
	s.Start(r, 0, 1)
	s.Start(r, 30*ms, 2)
	assert.Equal(t, []uint64{1}, s.Advance(30*ms))
	assert.Equal(t, 40*ms, next(t, &s))
}

func TestTheGradualCurveSlowsDownBeforeItsPeak(t *testing.T) {
	g := sim.Gradual{Base: 10 * ms, Peak: 16}
	for n := 2; n <= 16; n++ {
		assert.Greater(t, g.Throughput(n), g.Throughput(n-1), "throughput rises up to the peak")
	}
	for n := 17; n < 64; n++ {
		assert.Less(t, g.Throughput(n), g.Throughput(n-1), "and falls past it")
	}
	assert.InDelta(t, 1.5, g.Slowdown(0, 16), 1e-9, "at the peak work takes 1.5 × Base")
	assert.InDelta(t, 1.2109375, g.Slowdown(0, 12), 1e-9, "at three quarters of it, 1.21 ×")
	assert.InDelta(t, 0.6, g.Throughput(32)/g.Throughput(16), 1e-9)
	r := rand.New(rand.NewPCG(1, 2))
	assert.Equal(t, 15*ms, g.Service(r, 0, 16))
	sq := sim.Gradual{Base: 10 * ms, Peak: 16, Power: 2}
	assert.InDelta(t, 2, sq.Slowdown(0, 16), 1e-9)
}

func TestAStepOfCapacitiesThatCannotBeSharedSlowsNothing(t *testing.T) {
	s := sim.Step{At: ms, Before: slow{ms}, After: sim.Curve{Base: ms, Knee: 1}}
	assert.Equal(t, 1.0, s.Slowdown(0, 5))
	assert.Equal(t, 5.0, s.Slowdown(ms, 5))
}
