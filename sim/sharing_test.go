package sim_test

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/evolvekit/evolve/sim"
	"github.com/stretchr/testify/assert"
)

const ms = time.Millisecond

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
