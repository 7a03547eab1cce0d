package sim_test

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/evolvekit/evolve/sim"
	"github.com/stretchr/testify/assert"
)

func TestTheCurveIsLinearToTheKneeThenContended(t *testing.T) {
	c := sim.Curve{Base: 10 * time.Millisecond, Knee: 8, Contention: 0.5}
	assert.InDelta(t, 100, c.Throughput(1), 1e-9)
	assert.InDelta(t, 800, c.Throughput(8), 1e-9)
	assert.InDelta(t, 800*2.0/3, c.Throughput(16), 1e-9, "twice the knee: two thirds")
	for n := 9; n < 64; n++ {
		assert.Less(t, c.Throughput(n), c.Throughput(n-1), "past the knee throughput falls")
	}
	flat := sim.Curve{Base: 10 * time.Millisecond, Knee: 8}
	assert.InDelta(t, 800, flat.Throughput(20), 1e-9)
	assert.Zero(t, c.Throughput(0))
	r := rand.New(rand.NewPCG(1, 2))
	assert.Equal(t, 18750*time.Microsecond, c.Service(r, 0, 12), "1.5 × the knee: 1.5 × (1 + 0.5×0.5) × Base")
}

func TestNoiseAveragesOneAndHasAHeavyTail(t *testing.T) {
	n := sim.Curve{Base: time.Millisecond, Knee: 1, Noise: sim.Noise{Jitter: 0.3, Tail: 0.02}}
	r := rand.New(rand.NewPCG(1, 2))
	var h sim.Histogram
	for range 200000 {
		h.Add(n.Service(r, 0, 1))
	}
	// the jitter's mean is 1; the tail adds 2% of a Pareto(1.5) mean of about 3.
	assert.InEpsilon(t, 1.04, h.Mean().Seconds()*1000, 0.03)
	assert.Greater(t, h.Quantile(0.999), 5*time.Millisecond)
	assert.Less(t, h.Quantile(0.5), time.Millisecond)
}

func TestAStepChangesTheCapacityAtItsInstant(t *testing.T) {
	s := sim.Step{At: time.Second, Before: sim.Curve{Base: time.Millisecond, Knee: 16}, After: sim.Curve{Base: time.Millisecond, Knee: 4}}
	r := rand.New(rand.NewPCG(1, 2))
	assert.Equal(t, time.Millisecond, s.Service(r, time.Second-1, 8))
	assert.Equal(t, 2*time.Millisecond, s.Service(r, time.Second, 8))
}

func TestRunChecksAGradualCurve(t *testing.T) {
	for _, c := range []struct {
		g    sim.Gradual
		want string
	}{
		{sim.Gradual{Peak: 1}, "sim: base service time must be positive, got 0s"},
		{sim.Gradual{Base: 1}, "sim: peak must be at least 1, got 0"},
		{sim.Gradual{Base: 1, Peak: 1, Power: 1}, "sim: power must be a finite number above 1, got 1"},
		{sim.Gradual{Base: 1, Peak: 1, Power: math.Inf(1)}, "sim: power must be a finite number above 1, got +Inf"},
		{sim.Gradual{Base: 1, Peak: 1, Noise: sim.Noise{Jitter: -1}}, "sim: jitter must be between 0 and 3, got -1"},
	} {
		_, err := sim.Run(alone(c.g, sim.Flood{}, time.Second), parallelAgent(t, 1))
		assert.EqualError(t, err, c.want)
		assert.ErrorIs(t, err, sim.ErrConfig)
	}
	res, err := sim.Run(alone(sim.Gradual{Base: time.Millisecond, Peak: 4}, sim.Flood{}, time.Second),
		parallelAgent(t, 4))
	assert.NoError(t, err)
	assert.InEpsilon(t, sim.Gradual{Base: time.Millisecond, Peak: 4}.Throughput(4), res.Throughput, 0.01)
}
