package main

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
	a := AIMD{Timeout: 50 * time.Millisecond}
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
	g := adaptive.Controller(Gradient2{})
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
	s := adaptive.Controller(Santa{Explore: 1e-9})
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
	s := adaptive.Controller(Santa{})
	w := sample(4, 4, 10*time.Millisecond)
	w.Wait = 30 * time.Millisecond
	s, _ = observe(s, w)
	assert.InDelta(t, 100, s.View().Throughput, 1e-9, "4 in flight over 40ms, not 10ms")
}

func TestABadSettingIsAnAdaptiveConfigError(t *testing.T) {
	for _, c := range []struct {
		ctl  adaptive.Controller
		want string
	}{
		{AIMD{Backoff: 1}, "adaptive: aimd: timeout must not be negative and backoff must be at least 0 and below 1, got 0s and 1"},
		{Santa{Rate: -1}, "adaptive: santa: rate and explore must be between 0 and 1, got -1 and 0"},
		{Gradient2{Smoothing: 2}, "adaptive: gradient2: queue size, smoothing (at most 1) and long window must not be negative, got 0, 2 and 0"},
	} {
		_, err := adaptive.NewState[int, int](adaptive.Config{Controller: c.ctl})
		assert.EqualError(t, err, c.want)
		assert.ErrorIs(t, err, adaptive.ErrConfig)
	}
	for _, c := range controllers() {
		_, err := adaptive.NewState[int, int](adaptive.Config{Controller: c})
		assert.NoError(t, err, c.Name())
	}
}

func TestTheControllersAreNamedForTheTable(t *testing.T) {
	var names []string
	for _, c := range controllers() {
		names = append(names, c.Name())
	}
	assert.Equal(t, []string{"hill", "santa", "aimd", "gradient2"}, names)
}

func TestObserveLeavesTheControllerItWasGivenUntouched(t *testing.T) {
	for _, c := range controllers() {
		c, _ = observe(c, sample(4, 4, 10*time.Millisecond), sample(5, 5, 12*time.Millisecond), sample(4, 3, 9*time.Millisecond))
		// Two different futures of the same controller must not see each other.
		left, l := observe(c, sample(4, 4, 11*time.Millisecond), sample(5, 5, 30*time.Millisecond))
		observe(c, sample(6, 6, time.Millisecond), sample(3, 3, time.Second))
		again, a := observe(c, sample(4, 4, 11*time.Millisecond), sample(5, 5, 30*time.Millisecond))
		assert.Equal(t, l, a, c.Name())
		assert.Equal(t, left, again, c.Name())
	}
}
