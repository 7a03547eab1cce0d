package adaptive_test

import (
	"context"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/evolvekit/evolve/adaptive"
	"github.com/evolvekit/evolve/parallel"
	"github.com/evolvekit/evolve/sim"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// simulate runs a lone adaptive agent with Hill in the simulator, its work
// following c, and returns the run.
func simulate(t *testing.T, cfg sim.Config, c sim.Capacity, initial int) *sim.Result {
	t.Helper()
	stage, err := adaptive.Stage(adaptive.Config{Max: 64, Initial: initial, Unordered: true, Seed: cfg.Seed},
		func(context.Context, int) (int, error) { return 0, nil })
	require.NoError(t, err)
	cfg.Capacity = []sim.Capacity{c}
	res, err := sim.Run(cfg, sim.Chain[int, int]{Stage: stage, Limit: func(st any) int { return st.(adaptive.Status).Limit }})
	require.NoError(t, err)
	return res
}

func curve(knee int) sim.Curve {
	return sim.Curve{Base: 10 * time.Millisecond, Knee: knee, Contention: 0.5}
}

func TestHillFindsTheKneeUnderOverload(t *testing.T) {
	for _, knee := range []int{3, 8, 20} {
		res := simulate(t, sim.Config{Seed: 1, Arrivals: sim.Flood{}, Duration: 5 * time.Second, Every: 10 * time.Millisecond}, curve(knee), 1)
		at := map[int]int{}
		for _, s := range res.Trace[len(res.Trace)/2:] {
			at[s.Limit]++
		}
		assert.Greater(t, at[knee], len(res.Trace)/2*3/4, "knee %d: the limit sits at the knee most of the second half: %v", knee, at)
		best := float64(knee) / curve(knee).Base.Seconds() // at its knee, a Curve is as quick as alone
		assert.Greater(t, res.Throughput, 0.95*best, "knee %d", knee)
	}
}

func TestHillFollowsACapacityStep(t *testing.T) {
	res := simulate(t, sim.Config{Seed: 2, Arrivals: sim.Flood{}, Duration: 6 * time.Second, Every: 10 * time.Millisecond},
		sim.Step{At: 3 * time.Second, Before: curve(16), After: curve(4)}, 4)
	assert.Equal(t, 16, res.Trace[290].Limit, "at the knee before the step")
	last := res.Trace[len(res.Trace)-100:]
	at4 := 0
	for _, s := range last {
		if s.Limit == 4 {
			at4++
		}
	}
	assert.Greater(t, at4, 75, "at the new knee by the end")
}

func TestHillDoesNotDriftUnderLightLoad(t *testing.T) {
	res := simulate(t, sim.Config{Seed: 3, Arrivals: sim.Steady{Rate: 160, Poisson: true},
		Duration: 20 * time.Second, Every: 10 * time.Millisecond}, curve(8), 3)
	for _, s := range res.Trace {
		if s.Limit != 3 {
			t.Fatalf("the limit moved to %d at %v under 20%% load", s.Limit, s.At)
		}
	}
}

func TestTheSameSeedGivesTheSameRun(t *testing.T) {
	cfg := sim.Config{Seed: 4, Arrivals: sim.Batches{Every: 20 * time.Millisecond, Max: 30},
		Duration: 3 * time.Second, Every: 5 * time.Millisecond}
	noisy := sim.Curve{Base: 5 * time.Millisecond, Knee: 6, Contention: 0.5, Noise: sim.Noise{Jitter: 0.3, Tail: 0.02}}
	a, b := simulate(t, cfg, noisy, 2), simulate(t, cfg, noisy, 2)
	assert.Equal(t, a.Trace, b.Trace)
	assert.Equal(t, a.Digest, b.Digest)
}

// besideABusyCore is two cores, one of which another process keeps busy,
// for work that runs on at most two threads: one piece of work at a time
// runs alone on the free core, two or more share both cores with the other
// process and get 4/3 of a core between them. Service times vary by about
// 30%, as the other process's time slices make them.
type besideABusyCore struct{ base time.Duration }

// Service returns the service time with n in flight.
func (c besideABusyCore) Service(r *rand.Rand, at time.Duration, n int) time.Duration {
	slowdown := max(1, 0.75*float64(n))
	noisy := sim.Curve{Base: c.base, Knee: 1, Noise: sim.Noise{Jitter: 0.3}}.Service(r, at, 1)
	return time.Duration(slowdown * float64(noisy))
}

func TestHillKeepsUpWithTheBestFixedLimitBesideABusyCore(t *testing.T) {
	// Batches of 0 to 60 jobs of 50 ms every second, as in examples/santa:
	// 113% of what the agent can get of the machine, from a limit of 1.
	c := besideABusyCore{base: 50 * time.Millisecond}
	for seed := uint64(1); seed <= 3; seed++ {
		cfg := sim.Config{Seed: seed, Arrivals: sim.Batches{Every: time.Second, Max: 60}, Duration: 60 * time.Second,
			Capacity: []sim.Capacity{c}}
		fixed, err := parallel.Stage(parallel.Config{Limit: 2, Unordered: true, MaxBatch: 1},
			func(context.Context, int) (int, error) { return 0, nil })
		require.NoError(t, err)
		best, err := sim.Run(cfg, sim.Chain[int, int]{Stage: fixed})
		require.NoError(t, err)
		res := simulate(t, cfg, c, 1)
		assert.Greater(t, res.Throughput, 0.95*best.Throughput, "seed %d: against a limit of 2", seed)
	}
}
