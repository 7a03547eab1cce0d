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

// climb feeds h n samples, each at the limit it asked for before, with that
// limit in flight, saturated, and the service time that gives throughput
// x(limit) by Little's law; it returns the limits it asked for.
func climb(h adaptive.Controller, limit, n int, x func(int) float64) []int {
	r := rand.New(rand.NewPCG(1, 2))
	var limits []int
	for range n {
		s := sample(limit, limit, time.Duration(float64(limit)/x(limit)*float64(time.Second)))
		s.Elapsed, s.Busy = time.Millisecond, time.Millisecond
		h, limit = h.Observe(s, r)
		limits = append(limits, limit)
	}
	return limits
}

func TestHillDoublesOnlyForHalfOfPerfectScalingThenSearchesFiner(t *testing.T) {
	// From 2 to 4 throughput gains 30%: too little for a doubling (50%), so
	// it does not try 8; the search then finds 3, then 4 (4% over 3, more
	// than a tenth of the 33% perfect scaling would give).
	x := map[int]float64{1: 100, 2: 200, 3: 250, 4: 260, 5: 240, 6: 220, 8: 200}
	got := climb(adaptive.Hill{}, 2, 2000, func(l int) float64 { return x[l] })
	assert.NotContains(t, got, 8)
	assert.Contains(t, got, 3)
	assert.Equal(t, 4, got[len(got)-1])
	tried := map[int]bool{}
	for _, l := range got[len(got)/2:] {
		tried[l] = true
	}
	assert.Equal(t, map[int]bool{3: true, 4: true, 5: true}, tried, "holding 4, probing its neighbours")
}

func TestHillProbesOnlyUpWhereThroughputIsFlatAbove(t *testing.T) {
	flat := func(l int) float64 { return 100 * float64(min(l, 8)) }
	contended := func(l int) float64 { return 100 * float64(l) / max(1, float64(l)/8*(1+0.5*(float64(l)/8-1))) }
	for _, c := range []struct {
		name string
		x    func(int) float64
		down bool
	}{{"flat", flat, false}, {"contended", contended, true}} {
		got := climb(adaptive.Hill{}, 4, 20000, c.x)
		seen := map[int]int{}
		for _, l := range got[len(got)/2:] {
			seen[l]++
		}
		assert.Positive(t, seen[9], "%s: probes up", c.name)
		assert.Equal(t, c.down, seen[7] > 0, "%s: probes down: %v", c.name, seen)
		assert.Greater(t, seen[8], len(got)/2*3/4, "%s: holds 8", c.name)
	}
}
