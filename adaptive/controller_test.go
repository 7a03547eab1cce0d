package adaptive_test

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/evolvekit/evolve/adaptive"
	"github.com/stretchr/testify/assert"
)

// observe feeds c the samples and returns the limits it asked for.
func observe(c adaptive.Controller, samples ...adaptive.Sample) (adaptive.Controller, []int) {
	r := rand.New(rand.NewPCG(1, 2))
	var limits []int
	for _, s := range samples {
		var n int
		c, n = c.Observe(s, r)
		limits = append(limits, n)
	}
	return c, limits
}

func sample(limit, started int, service time.Duration) adaptive.Sample {
	return adaptive.Sample{Service: service, Started: started, InFlight: started, Limit: limit, Min: 1, Max: 100}
}

func TestFixedKeepsTheLimit(t *testing.T) {
	_, got := observe(adaptive.Fixed{}, sample(7, 7, time.Second), sample(3, 3, time.Millisecond))
	assert.Equal(t, []int{7, 3}, got)
}

func TestHillHoldsStillWithoutSaturation(t *testing.T) {
	h := adaptive.Controller(adaptive.Hill{})
	s := sample(4, 4, 10*time.Millisecond)
	s.Elapsed, s.Busy = 10*time.Millisecond, time.Millisecond
	for range 1000 {
		var n int
		h, n = h.Observe(s, rand.New(rand.NewPCG(1, 2)))
		assert.Equal(t, 4, n)
	}
	assert.Equal(t, "start", h.View().Phase)
}

func TestHillDoublesWhileSaturatedAndScaling(t *testing.T) {
	h := adaptive.Controller(adaptive.Hill{})
	limit := 2
	for range 200 {
		s := sample(limit, limit, 10*time.Millisecond) // perfect scaling: the same service time at any limit
		s.Elapsed, s.Busy = time.Millisecond, time.Millisecond
		h, limit = h.Observe(s, rand.New(rand.NewPCG(1, 2)))
	}
	assert.Equal(t, 100, limit, "doubled up to Max")
	assert.Equal(t, "hold", h.View().Phase)
	assert.InDelta(t, 10000, h.View().Throughput, 1e-6)
	assert.Equal(t, 10*time.Millisecond, h.View().Latency)
}
