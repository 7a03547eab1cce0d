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

func TestAIMDAddsOneAndCutsByBackoff(t *testing.T) {
	a := adaptive.AIMD{Timeout: 50 * time.Millisecond}
	_, got := observe(a,
		sample(10, 5, 10*time.Millisecond),  // half the limit in flight: +1
		sample(10, 4, 10*time.Millisecond),  // under half: stays
		sample(10, 10, 60*time.Millisecond), // over the timeout: ×0.9
		adaptive.Sample{Limit: 10, Started: 10, Failed: true},
	)
	assert.Equal(t, []int{11, 10, 9, 9}, got)
	assert.Equal(t, "aimd", a.Name())
}

func TestGradient2GrowsWhileLatencyIsSteadyAndShrinksWhenItRises(t *testing.T) {
	g := adaptive.Controller(adaptive.Gradient2{})
	var got []int
	g, got = observe(g, sample(20, 20, 10*time.Millisecond), sample(20, 20, 10*time.Millisecond))
	assert.Equal(t, []int{20, 21}, got, "20 + 0.2×4 each sample, truncated")
	_, got = observe(g, sample(21, 21, 40*time.Millisecond))
	assert.Less(t, got[0], 21, "a slower sample shrinks the limit")
	_, got = observe(g, sample(21, 5, 10*time.Millisecond))
	assert.Equal(t, []int{21}, got, "fewer than half in flight: unchanged")
	assert.Equal(t, "gradient2", g.Name())
}

func TestSantaMovesToABetterNeighbour(t *testing.T) {
	s := adaptive.Controller(adaptive.Santa{Explore: 1e-9})
	var got []int
	// at 4: 4 in flight over 10ms; at 5: 5 over 10ms, better.
	s, got = observe(s, sample(4, 4, 10*time.Millisecond))
	assert.Equal(t, []int{4}, got, "no neighbour known yet")
	s, _ = observe(s, sample(5, 5, 10*time.Millisecond))
	_, got = observe(s, sample(4, 4, 10*time.Millisecond))
	assert.Equal(t, []int{5}, got)
	assert.Equal(t, "explore", s.View().Phase)
}

func TestSantaCountsQueueWaitAsServiceTime(t *testing.T) {
	s := adaptive.Controller(adaptive.Santa{})
	w := sample(4, 4, 10*time.Millisecond)
	w.Wait = 30 * time.Millisecond
	s, _ = observe(s, w)
	assert.InDelta(t, 100, s.View().Throughput, 1e-9, "4 in flight over 40ms, not 10ms")
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
