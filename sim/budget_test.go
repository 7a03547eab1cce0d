package sim_test

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/evolvekit/evolve/adaptive"
	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/buffer"
	"github.com/evolvekit/evolve/compose"
	"github.com/evolvekit/evolve/parallel"
	"github.com/evolvekit/evolve/rate"
	"github.com/evolvekit/evolve/sim"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// threeStages is parallel -> parallel -> parallel, each starting at limit.
func threeStages(t *testing.T, limit int) agent.Stage[int, int] {
	t.Helper()
	var s [3]agent.Stage[int, int]
	for i := range s {
		var err error
		s[i], err = parallel.Stage(parallel.Config{Limit: limit, MaxBatch: 1, Unordered: true}, identity)
		require.NoError(t, err)
	}
	return compose.Pipe3(s[0], s[1], s[2])
}

// limitOf reads a parallel or adaptive agent's limit.
func limitOf(status any) int {
	switch s := status.(type) {
	case parallel.Status:
		return s.Limit
	case adaptive.Status:
		return s.Limit
	}
	return 0
}

// shifting is a flood through three stages whose bottleneck moves from the
// first to the last at one second.
func shifting(workers int) sim.Config {
	ms := time.Millisecond
	return sim.Config{
		Seed: 1, Arrivals: sim.Flood{}, Duration: 2 * time.Second, Every: 10 * ms, Workers: workers,
		Capacity: []sim.Capacity{
			sim.Step{At: time.Second, Before: sim.Curve{Base: 40 * ms, Knee: 32}, After: sim.Curve{Base: 5 * ms, Knee: 32}},
			sim.Curve{Base: 10 * ms, Knee: 32},
			sim.Step{At: time.Second, Before: sim.Curve{Base: 5 * ms, Knee: 32}, After: sim.Curve{Base: 40 * ms, Knee: 32}},
		},
	}
}

func TestSharedWorkersFollowTheBottleneck(t *testing.T) {
	res, err := sim.Run(shifting(12), sim.Chain[int, int]{Stage: threeStages(t, 1), Limit: limitOf})
	require.NoError(t, err)
	require.NoError(t, res.Err)
	first, last := res.Agents[0].Trace, res.Agents[2].Trace
	for j, s := range res.Trace {
		require.Equal(t, 12, s.Limit, "the limits add up to the workers at %v", s.At)
		if j == 0 {
			assert.Equal(t, [3]int{4, 4, 4}, [3]int{first[j].Limit, res.Agents[1].Trace[j].Limit, last[j].Limit}, "an even split to start")
		}
	}
	at := func(tr sim.Trace, d time.Duration) int { return tr[int(d/(10*time.Millisecond))].Limit }
	assert.GreaterOrEqual(t, at(first, 900*time.Millisecond), 8, "the first stage is the bottleneck")
	assert.GreaterOrEqual(t, at(last, 1900*time.Millisecond), 8, "then the last one")

	static, err := sim.Run(shifting(0), sim.Chain[int, int]{Stage: threeStages(t, 4)})
	require.NoError(t, err)
	assert.Greater(t, res.Throughput, 1.5*static.Throughput, "the even split, fixed, does worse")
}

func TestSharedWorkersRunDeterministicallyAndDrain(t *testing.T) {
	cfg := shifting(9)
	cfg.Drain, cfg.WorkersPeriod = true, 20*time.Millisecond
	run := func() *sim.Result {
		res, err := sim.Run(cfg, sim.Chain[int, int]{Stage: threeStages(t, 1), Limit: limitOf})
		require.NoError(t, err)
		return res
	}
	a, b := run(), run()
	assert.Equal(t, a.Digest, b.Digest)
	assert.Equal(t, csv(t, a.Trace), csv(t, b.Trace))
	assert.True(t, a.Finished, "the reallocations do not keep a drained run going")
	assert.Equal(t, a.Posted, a.Emitted)
}

func TestSharedWorkersSetTheLimitOfAnAdaptiveStage(t *testing.T) {
	p, err := parallel.Stage(parallel.Config{Limit: 1, MaxBatch: 1}, identity)
	require.NoError(t, err)
	a, err := adaptive.Stage(adaptive.Config{Max: 16, Controller: fixed{}}, identity)
	require.NoError(t, err)
	ms := time.Millisecond
	res, err := sim.Run(sim.Config{
		Seed: 2, Arrivals: sim.Flood{}, Duration: time.Second, Every: 10 * ms, Workers: 10,
		Capacity: []sim.Capacity{sim.Curve{Base: ms, Knee: 32}, sim.Curve{Base: 20 * ms, Knee: 32}},
	}, sim.Chain[int, int]{Stage: compose.Pipe2(p, a), Limit: limitOf})
	require.NoError(t, err)
	tr := res.Agents[1].Trace
	assert.Equal(t, 9, tr[len(tr)-1].Limit, "the slow adaptive stage has all but the parallel stage's one")
	assert.Equal(t, 10, res.Trace[len(res.Trace)-1].Limit)
}

func TestRunRefusesWorkersItCannotShare(t *testing.T) {
	r, err := rate.Stage(rate.Config[int]{Rate: 100, Burst: 1})
	require.NoError(t, err)
	b, err := buffer.Stage(buffer.Config[int]{Size: 10}, nil)
	require.NoError(t, err)
	none := compose.Pipe2(r, b)
	base := sim.Config{Arrivals: sim.Flood{}, Duration: time.Second}
	with := func(workers int, period time.Duration) sim.Config {
		cfg := base
		cfg.Workers, cfg.WorkersPeriod = workers, period
		return cfg
	}
	for _, c := range []struct {
		cfg  sim.Config
		want string
	}{
		{with(-1, 0), "sim: workers must not be negative, got -1"},
		{with(3, -time.Millisecond), "sim: workers period must not be negative, got -1ms"},
		{with(2, 0), "sim: workers must be at least the chain's 3 agents that share them, got 2"},
	} {
		_, err := sim.Run(c.cfg, sim.Chain[int, int]{Stage: threeStages(t, 1)})
		assert.EqualError(t, err, c.want)
		assert.ErrorIs(t, err, sim.ErrConfig)
	}
	_, err = sim.Run(with(4, 0), sim.Chain[int, []int]{Stage: none})
	assert.EqualError(t, err, "sim: workers need an agent that shares them, and the chain has none")
}

// fixed is a controller that keeps the limit where the budget sets it.
type fixed struct{}

func (fixed) Name() string { return "fixed" }

func (f fixed) Observe(s adaptive.Sample, _ *rand.Rand) (adaptive.Controller, int) {
	return f, s.Limit
}

func (fixed) View() adaptive.View { return adaptive.View{Phase: "fixed"} }

// pacedPair is a rate stage of perSecond, then two parallel stages at the
// limits given.
func pacedPair(t *testing.T, perSecond float64, first, second int) agent.Stage[int, int] {
	t.Helper()
	r, err := rate.Stage(rate.Config[int]{Rate: perSecond, Burst: 10})
	require.NoError(t, err)
	p1, err := parallel.Stage(parallel.Config{Limit: first, MaxBatch: 1, Unordered: true}, identity)
	require.NoError(t, err)
	p2, err := parallel.Stage(parallel.Config{Limit: second, MaxBatch: 1, Unordered: true}, identity)
	require.NoError(t, err)
	return compose.Pipe3(r, p1, p2)
}

// TestSharedWorkersSeeTheBacklogInThePacer runs a flood through a rate
// stage, then a parallel stage whose work takes 30 ms and one whose work
// takes 10 ms, sharing 8 workers. The stage after the rate stage takes
// items only as it can start them, so its backlog waits in the rate
// stage's queue: the budget counts it there, and the slow stage gets the
// workers of the best static split, 6/2, whether the rate is far above
// what the workers can do or close to it.
func TestSharedWorkersSeeTheBacklogInThePacer(t *testing.T) {
	ms := time.Millisecond
	for _, perSecond := range []float64{10000, 150} {
		cfg := sim.Config{Seed: 1, Arrivals: sim.Flood{}, Duration: 10 * time.Second, Every: 10 * ms,
			Capacity: []sim.Capacity{nil, sim.Curve{Base: 30 * ms, Knee: 32}, sim.Curve{Base: 10 * ms, Knee: 32}}}
		best, err := sim.Run(cfg, sim.Chain[int, int]{Stage: pacedPair(t, perSecond, 6, 2)})
		require.NoError(t, err)
		cfg.Workers = 8
		res, err := sim.Run(cfg, sim.Chain[int, int]{Stage: pacedPair(t, perSecond, 1, 1), Limit: limitOf})
		require.NoError(t, err)
		require.NoError(t, res.Err)
		tr := res.Agents[1].Trace
		held := 0
		for _, s := range tr[len(tr)/2:] {
			held += s.Limit
		}
		mean := float64(held) / float64(len(tr)-len(tr)/2)
		assert.GreaterOrEqual(t, mean, 5.5, "rate %v: the slow stage's mean share", perSecond)
		assert.GreaterOrEqual(t, res.Throughput, 0.95*best.Throughput, "rate %v: the budget against the best static split, %.1f items/s", perSecond, best.Throughput)
	}
}

// TestSharedWorkersSeeTheBacklogInThePacerOfAnAdaptiveStage is the same for
// an adaptive stage, held at the limit the budget sets, after the rate
// stage.
func TestSharedWorkersSeeTheBacklogInThePacerOfAnAdaptiveStage(t *testing.T) {
	r, err := rate.Stage(rate.Config[int]{Rate: 10000, Burst: 10})
	require.NoError(t, err)
	a, err := adaptive.Stage(adaptive.Config{Max: 16, Controller: fixed{}, Unordered: true}, identity)
	require.NoError(t, err)
	p, err := parallel.Stage(parallel.Config{Limit: 1, MaxBatch: 1, Unordered: true}, identity)
	require.NoError(t, err)
	ms := time.Millisecond
	res, err := sim.Run(sim.Config{Seed: 1, Arrivals: sim.Flood{}, Duration: 5 * time.Second, Every: 10 * ms, Workers: 8,
		Capacity: []sim.Capacity{nil, sim.Curve{Base: 30 * ms, Knee: 32}, sim.Curve{Base: 10 * ms, Knee: 32}},
	}, sim.Chain[int, int]{Stage: compose.Pipe3(r, a, p), Limit: limitOf})
	require.NoError(t, err)
	require.NoError(t, res.Err)
	tr := res.Agents[1].Trace
	assert.GreaterOrEqual(t, tr[len(tr)-1].Limit, 5, "the slow adaptive stage has most of the workers")
	assert.GreaterOrEqual(t, res.Throughput, 180.0, "6 workers on 30 ms and 2 on 10 ms do 200 items/s; 4 and 4, 133")
}
