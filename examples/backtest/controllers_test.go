package main

import (
	"fmt"
	"math/rand/v2"
	"reflect"
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

// follow feeds c n samples of service time d, each at the limit c asked
// for the one before with that limit in flight, and returns the limits.
func follow(c adaptive.Controller, limit, n int, d time.Duration) (adaptive.Controller, []int) {
	r := rand.New(rand.NewPCG(1, 2))
	var limits []int
	for range n {
		c, limit = c.Observe(sample(limit, limit, d), r)
		limit = clamp(limit, 1, 100)
		limits = append(limits, limit)
	}
	return c, limits
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

func TestGradient2ToleratesSomeSlownessAndShrinksBeyondIt(t *testing.T) {
	g := adaptive.Controller(Gradient2{})
	var got []int
	g, got = observe(g, sample(20, 20, 10*time.Millisecond), sample(20, 20, 10*time.Millisecond))
	assert.Equal(t, []int{20, 21}, got, "20 + 0.2×4 each sample, truncated")
	_, got = observe(g, sample(21, 21, 100*time.Millisecond))
	assert.Equal(t, []int{20}, got, "10 times slower shrinks it")
	_, got = observe(g, sample(21, 5, 10*time.Millisecond))
	assert.Equal(t, []int{21}, got, "fewer than half in flight: unchanged")
	assert.Equal(t, "gradient2", g.Name())

	// With all of the new limit taken each sample: 20 + 4 + 4, then a
	// sample 1.4 times slower than the long-term 11.3ms.
	_, got = observe(Gradient2{Smoothing: 1}, sample(20, 20, 10*time.Millisecond), sample(24, 24, 10*time.Millisecond),
		sample(28, 28, 14*time.Millisecond))
	assert.Equal(t, []int{24, 28, 32}, got, "within the tolerance of 1.5: it grows")
	_, got = observe(Gradient2{Smoothing: 1, Tolerance: 1}, sample(20, 20, 10*time.Millisecond), sample(24, 24, 10*time.Millisecond),
		sample(28, 28, 14*time.Millisecond))
	assert.Equal(t, []int{24, 28, 26}, got, "with no tolerance it shrinks: 28 × 11.3/14 + 4")
}

func TestGradient2LetsTheLongTermLatencyDecayWhenLoadDrops(t *testing.T) {
	g, _ := observe(Gradient2{}, sample(20, 20, 100*time.Millisecond))
	assert.Equal(t, 100*time.Millisecond, g.View().Latency)
	g, _ = observe(g, sample(20, 20, 10*time.Millisecond))
	// (100+10)/2 = 55ms, over twice 10ms: less 5%.
	assert.Equal(t, 52250*time.Microsecond, g.View().Latency)
}

func TestVegasGrowsWhileTheServiceTimeStaysAtItsLeast(t *testing.T) {
	v, got := follow(Vegas{ProbeMultiplier: 1000}, 4, 4, 10*time.Millisecond)
	// The first sample sets the no-load time; then no queue: + 6 each.
	assert.Equal(t, []int{4, 10, 16, 22}, got)
	assert.Equal(t, 10*time.Millisecond, v.View().Latency)
	assert.Equal(t, "vegas", v.Name())
}

func TestVegasShrinksWhenQueueingShows(t *testing.T) {
	v, _ := observe(Vegas{ProbeMultiplier: 1000}, sample(20, 20, 10*time.Millisecond))
	_, got := observe(v,
		sample(20, 20, 20*time.Millisecond), // a queue of 10, above beta (6): -1
		sample(19, 19, 14*time.Millisecond), // a queue of 6: between alpha (3) and beta, stays
		sample(19, 19, 12*time.Millisecond), // a queue of 4: stays
	)
	assert.Equal(t, []int{19, 19, 19}, got)
	_, got = observe(v, sample(20, 20, 11*time.Millisecond)) // a queue of 2, below alpha: +1
	assert.Equal(t, []int{21}, got)
	_, got = observe(v, adaptive.Sample{Limit: 20, Started: 20, Service: 10 * time.Millisecond, Failed: true, Min: 1, Max: 100})
	assert.Equal(t, []int{19}, got, "a drop: -1")
	_, got = observe(v, sample(20, 9, 30*time.Millisecond))
	assert.Equal(t, []int{20}, got, "fewer than half in flight: unchanged")
	_, got = observe(Vegas{ProbeMultiplier: 1000, Smoothing: 0.5}, sample(20, 20, 10*time.Millisecond), sample(20, 20, 10*time.Millisecond))
	assert.Equal(t, []int{20, 23}, got, "smoothed: half of +6")
}

func TestVegasProbesTheNoLoadTimeAgain(t *testing.T) {
	// Every 1 × limit × [0.5, 1) samples, the no-load time is reset to the
	// sample's: here it rises from 10ms to 30ms within 4 samples at a limit
	// of 4.
	v, _ := observe(Vegas{ProbeMultiplier: 1}, sample(4, 4, 10*time.Millisecond))
	assert.Equal(t, 10*time.Millisecond, v.View().Latency)
	for range 4 {
		v, _ = observe(v, sample(4, 4, 30*time.Millisecond))
	}
	assert.Equal(t, 30*time.Millisecond, v.View().Latency)
	never, _ := observe(Vegas{ProbeMultiplier: 1000}, sample(4, 4, 10*time.Millisecond))
	for range 4 {
		never, _ = observe(never, sample(4, 4, 30*time.Millisecond))
	}
	assert.Equal(t, 10*time.Millisecond, never.View().Latency)
}

func TestWindowedFeedsItsLimitOncePerWindow(t *testing.T) {
	w := adaptive.Controller(Windowed{Limit: AIMD{Timeout: time.Second}, MinWindow: 100 * time.Millisecond})
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	limit := 10
	var got []int
	for i := range 300 {
		s := sample(limit, limit, 10*time.Millisecond)
		s.At = at.Add(time.Duration(i) * time.Millisecond)
		w, limit = w.Observe(s, nil)
		got = append(got, limit)
	}
	// The first window closes at its 11th sample (more than 10), the next
	// ones at the first sample more than 100ms after the last close: AIMD
	// adds one each time.
	changes := map[int]int{}
	for i := 1; i < len(got); i++ {
		if got[i] != got[i-1] {
			changes[i] = got[i]
		}
	}
	assert.Equal(t, map[int]int{10: 11, 111: 12, 212: 13}, changes, "limits %v", got[:12])
	assert.Equal(t, "aimd-windowed", w.Name())
}

func TestWindowedAggregatesTheWindow(t *testing.T) {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var samples []adaptive.Sample
	for i := range 11 {
		s := sample(10, 3+i%5, time.Duration(10+i)*time.Millisecond)
		s.At = at.Add(time.Duration(i) * time.Millisecond)
		samples = append(samples, s)
	}
	// A Gradient2 with no tolerance sees one sample: a mean of 15ms, with 7
	// in flight at most (over half the limit), and stays at 10 + 4·0.2.
	w, got := observe(Windowed{Limit: Gradient2{Tolerance: 1}}, samples...)
	assert.Equal(t, []int{10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10}, got)
	assert.Equal(t, 15*time.Millisecond, w.View().Latency, "the window's mean is the one sample the limit saw")
	fast := samples[0]
	fast.Service = 50 * time.Microsecond
	_, got = observe(Windowed{Limit: AIMD{}}, append([]adaptive.Sample{fast}, samples[:10]...)...)
	assert.Equal(t, []int{10, 10, 10, 10, 10, 10, 10, 10, 10, 10, 10}, got, "a sample under 100µs does not count: 10 are not enough")
	failed := samples[10]
	failed.Failed = true
	_, got = observe(Windowed{Limit: AIMD{}}, append(samples[:10:10], failed, samples[10])...)
	assert.Equal(t, 9, got[11], "a failed sample is a drop, and the window's")
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
		{Gradient2{Smoothing: 2}, "adaptive: gradient2: queue size, smoothing (at most 1) and long window must not be negative, and tolerance must be at least 1, got 0, 2, 0 and 0"},
		{Gradient2{Tolerance: 0.5}, "adaptive: gradient2: queue size, smoothing (at most 1) and long window must not be negative, and tolerance must be at least 1, got 0, 0, 0 and 0.5"},
		{Vegas{Alpha: 7}, "adaptive: vegas: alpha must not be negative nor above beta, smoothing must be between 0 and 1 and the probe multiplier not negative, got 7, 0, 0 and 0"},
		{Windowed{}, "adaptive: windowed: the limit to feed must not be nil"},
		{Windowed{Limit: AIMD{}, MinWindow: 50 * time.Millisecond}, "adaptive: windowed: windows must be at least 100ms, the size at least 10 and the least RTT not negative, got 50ms, 0s, 0 and 0s"},
		{Windowed{Limit: Vegas{Smoothing: 2}}, "adaptive: vegas: alpha must not be negative nor above beta, smoothing must be between 0 and 1 and the probe multiplier not negative, got 0, 0, 2 and 0"},
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
	assert.Equal(t, []string{"hill", "santa", "aimd", "aimd-windowed", "gradient2", "gradient2-windowed", "vegas", "vegas-windowed"}, names)
}

func TestTheBaselinesRunWithSettingsFromTheSweepsGrid(t *testing.T) {
	grids := map[string][]adaptive.Controller{}
	for _, f := range families() {
		grids[f.name] = f.grid
	}
	assert.Equal(t, adaptive.Hill{}, controllers()[0], "hill runs with the library's defaults")
	for _, c := range controllers()[1:] {
		var settings []string
		for _, g := range grids[c.Name()] {
			settings = append(settings, fmt.Sprint(g))
		}
		assert.Contains(t, settings, fmt.Sprint(c), c.Name())
	}
}

func TestObserveLeavesTheControllerItWasGivenUntouched(t *testing.T) {
	for _, c := range controllers() {
		c, _ = observe(c, sample(4, 4, 10*time.Millisecond), sample(5, 5, 12*time.Millisecond), sample(4, 3, 9*time.Millisecond))
		// Two different futures of the same controller must not see each other.
		left, l := observe(c, sample(4, 4, 11*time.Millisecond), sample(5, 5, 30*time.Millisecond))
		observe(c, sample(6, 6, time.Millisecond), sample(3, 3, time.Second))
		again, a := observe(c, sample(4, 4, 11*time.Millisecond), sample(5, 5, 30*time.Millisecond))
		assert.Equal(t, l, a, c.Name())
		assert.True(t, reflect.DeepEqual(left, again), c.Name())
	}
}
