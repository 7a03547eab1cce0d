package sim_test

import (
	"bytes"
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/evolvekit/evolve/adaptive"
	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/buffer"
	"github.com/evolvekit/evolve/compose"
	"github.com/evolvekit/evolve/parallel"
	"github.com/evolvekit/evolve/rate"
	"github.com/evolvekit/evolve/sim"
	"github.com/evolvekit/evolve/spawn"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// pipeline is rate -> parallel -> buffer: pace lets items through, the
// parallel stage runs work on them as cfg says, and the buffer cuts
// batches of size.
func pipeline(t *testing.T, pace rate.Config[int], cfg parallel.Config, work parallel.Work[int, int], size int) agent.Stage[int, []int] {
	t.Helper()
	r, err := rate.Stage(pace)
	require.NoError(t, err)
	p, err := parallel.Stage(cfg, work)
	require.NoError(t, err)
	b, err := buffer.Stage(buffer.Config[int]{Size: size}, nil)
	require.NoError(t, err)
	return compose.Pipe3(r, p, b)
}

// identity is work that passes each item on as it is.
func identity(_ context.Context, v int) (int, error) { return v, nil }

// collected is what a chain's sink saw: the values of the batches, in
// order, and the instant of each batch.
type collected struct {
	values []int
	at     []time.Duration
}

// chain is a Chain of stage whose n-th item is n, whose sink collects
// into c.
func (c *collected) chain(stage agent.Stage[int, []int]) sim.Chain[int, []int] {
	return sim.Chain[int, []int]{
		Stage: stage,
		Item:  func(n uint64) int { return int(n) },
		Sink: func(at time.Duration, batch []int) {
			c.values = append(c.values, batch...)
			c.at = append(c.at, at)
		},
	}
}

// worldOf is the world of the tests of the three-stage pipeline: items
// arrive faster than the rate stage lets them through; the parallel
// stage's work takes about 2 ms, the buffer's flushes 5 ms.
func worldOf(seed uint64) sim.Config {
	return sim.Config{
		Seed:     seed,
		Arrivals: sim.Steady{Rate: 1200, Poisson: true},
		Duration: 2 * time.Second,
		Drain:    true,
		Every:    10 * time.Millisecond,
		Capacity: []sim.Capacity{
			nil,
			sim.Curve{Base: 2 * time.Millisecond, Knee: 4, Noise: sim.Noise{Jitter: 0.5}},
			sim.Curve{Base: 5 * time.Millisecond, Knee: 1},
		},
	}
}

// paced is the rate stage of the tests: 1000 items a second, a burst of
// 10, 16 items queued at most.
var paced = rate.Config[int]{Rate: 1000, Burst: 10, Queue: 16}

func TestAChainPassesEveryItemOnceInOrderWithinEveryBound(t *testing.T) {
	var c collected
	stage := pipeline(t, paced, parallel.Config{Limit: 4, Queue: 8}, identity, 100)
	res, err := sim.Run(worldOf(1), c.chain(stage))
	require.NoError(t, err)
	require.NoError(t, res.Err)
	require.True(t, res.Finished, "drained: every agent finished")
	require.Greater(t, res.Posted, int64(1500))

	require.Len(t, c.values, int(res.Posted), "every item came out")
	for i, v := range c.values {
		require.Equal(t, i, v, "item %d out of order, lost or doubled", i)
	}
	for i := 1; i < len(c.at); i++ {
		require.LessOrEqual(t, c.at[i-1], c.at[i], "the sink sees the batches in time order")
	}
	assert.Equal(t, int64(len(c.at)), res.Emitted, "the chain passes on batches")

	require.Len(t, res.Agents, 3)
	for i, name := range []string{"rate", "parallel", "buffer"} {
		st := res.Agents[i]
		assert.Equal(t, name, st.Name)
		assert.Equal(t, res.Posted, st.Taken, "%s took every item", name)
		assert.LessOrEqual(t, st.MaxQueued, st.Queue, "%s held no more than its bound", name)
		assert.Positive(t, st.MaxQueued, name)
		for _, s := range st.Trace {
			require.LessOrEqual(t, s.Queued, st.Queue, "%s at %v", name, s.At)
		}
		assert.True(t, st.Finished, name)
	}
	assert.Equal(t, 16, res.Agents[0].MaxQueued, "items arrive faster than the pace: the rate stage's queue fills")
	assert.Equal(t, res.Posted, res.Agents[1].Started, "one item a batch, each started once")
	assert.Equal(t, res.Agents[2].Started, res.Agents[2].Emitted, "one flush a batch")
	assert.Equal(t, res.Agents[0].Messages+res.Agents[1].Messages+res.Agents[2].Messages, res.Messages)
	last := res.Trace[len(res.Trace)-1]
	assert.Equal(t, res.Emitted, last.Emitted, "the chain's trace ends with the run")
}

func TestAChainKeepsThePaceOfTheRateStage(t *testing.T) {
	cfg := worldOf(2)
	cfg.Arrivals, cfg.Duration, cfg.Drain, cfg.Every = sim.Flood{}, time.Second, false, time.Millisecond
	stage := pipeline(t, paced, parallel.Config{Limit: 4, Queue: 8}, identity, 100)
	res, err := sim.Run(cfg, sim.Chain[int, []int]{Stage: stage})
	require.NoError(t, err)
	pace := res.Agents[0]
	require.NoError(t, conforms(emitted(pace.Trace), paced.Rate, paced.Burst))
	// The parallel stage takes no more than it can start: 4 of the burst
	// at the start, the rest as places free, while the full bucket loses
	// what refills meanwhile.
	assert.GreaterOrEqual(t, float64(pace.Emitted), paced.Rate, "the rate stage is the bottleneck: it keeps its pace")
}

func TestRetriesInAChainKeepThePaceOfTheRateStage(t *testing.T) {
	pace := rate.Config[int]{Rate: 100, Burst: 5}
	retry := parallel.Retry{Attempts: 6, Backoff: time.Nanosecond, MaxBackoff: time.Nanosecond}
	tries := map[int]int{}
	flaky := func(_ context.Context, v int) (int, error) {
		tries[v]++
		if (uint64(v)*0x9e3779b97f4a7c15^uint64(tries[v])*0xbf58476d1ce4e5b9)%3 == 0 {
			return 0, fmt.Errorf("item %d failed attempt %d", v, tries[v])
		}
		return v, nil
	}
	var c collected
	stage := pipeline(t, pace, parallel.Config{Limit: 8, MaxBatch: 1, Retry: retry}, flaky, 10)
	res, err := sim.Run(sim.Config{
		Seed: 3, Arrivals: sim.Flood{}, Duration: 3 * time.Second, Drain: true, Every: time.Millisecond,
		Capacity: []sim.Capacity{nil, sim.Curve{Base: time.Millisecond, Knee: 8}},
	}, c.chain(stage))
	require.NoError(t, err)
	require.True(t, res.Finished)

	work := res.Agents[1]
	require.Greater(t, work.Started, res.Posted+res.Posted/5, "a third of the attempts fail: there were retries")
	attempts := 0
	for _, n := range tries {
		attempts += n
	}
	assert.Equal(t, work.Started, int64(attempts), "each attempt ran the work once")
	assert.Equal(t, work.Reserved, res.Agents[0].Granted, "every retry waited for a pass of the rate stage")
	require.NoError(t, conforms(started(work.Trace), pace.Rate, pace.Burst), "attempts, retries included, keep the pace")

	assert.Equal(t, res.Posted, int64(len(c.values))+work.Declined, "every item came out, or failed for good")
	for i := 1; i < len(c.values); i++ {
		require.Less(t, c.values[i-1], c.values[i], "in order, once")
	}
	if work.Declined > 0 {
		assert.Error(t, res.Err, "an item failed for good: the stage's error says so")
	}
}

func TestAChainRunIsDeterministic(t *testing.T) {
	run := func(seed uint64) (*sim.Result, collected) {
		var c collected
		res, err := sim.Run(worldOf(seed), c.chain(pipeline(t, paced, parallel.Config{Limit: 4, Queue: 8}, identity, 100)))
		require.NoError(t, err)
		return res, c
	}
	a, ca := run(7)
	b, cb := run(7)
	assert.Equal(t, a.Digest, b.Digest)
	assert.Equal(t, ca, cb)
	assert.Equal(t, csv(t, a.Trace), csv(t, b.Trace), "the same bytes")
	for i := range a.Agents {
		assert.Equal(t, csv(t, a.Agents[i].Trace), csv(t, b.Agents[i].Trace), "the same bytes for %s", a.Agents[i].Name)
	}
	c, _ := run(8)
	assert.NotEqual(t, a.Digest, c.Digest, "another seed, another run")
}

func TestAChainWithAnAdaptiveStage(t *testing.T) {
	r, err := rate.Stage(rate.Config[int]{Rate: 5000, Burst: 50})
	require.NoError(t, err)
	a, err := adaptive.Stage(adaptive.Config{Max: 64, Unordered: true, Seed: 4}, identity)
	require.NoError(t, err)
	b, err := buffer.Stage(buffer.Config[int]{Size: 100}, nil)
	require.NoError(t, err)
	curve := sim.Curve{Base: 10 * time.Millisecond, Knee: 8, Contention: 0.5}
	limit := func(status any) int {
		if s, ok := status.(adaptive.Status); ok {
			return s.Limit
		}
		return 0
	}
	res, err := sim.Run(sim.Config{
		Seed: 4, Arrivals: sim.Flood{}, Duration: 5 * time.Second, Every: 10 * time.Millisecond,
		Capacity: []sim.Capacity{nil, curve},
	}, sim.Chain[int, []int]{Stage: compose.Pipe3(r, a, b), Limit: limit})
	require.NoError(t, err)

	st, ok := res.Agents[1].Status.(adaptive.Status)
	require.True(t, ok, "the adaptive stage's status: %T", res.Agents[1].Status)
	assert.Equal(t, 1, res.Agents[1].Trace[0].Limit, "it starts at its Min")
	assert.Equal(t, st.Limit, res.Agents[1].Trace[len(res.Agents[1].Trace)-1].Limit)
	assert.InDelta(t, 8, st.Limit, 2, "it found the knee behind the rate stage")
	assert.Zero(t, res.Agents[2].Trace[len(res.Agents[2].Trace)-1].Limit, "a buffer has no limit")
	assert.Greater(t, float64(res.Agents[1].Done)/res.End.Seconds(), 0.8*curve.Throughput(8), "near the best throughput")
	assert.LessOrEqual(t, res.Agents[1].MaxQueued, res.Agents[1].Queue)
}

func TestAChainCountsWhatItsConversionsRefuse(t *testing.T) {
	r, err := rate.Stage(rate.Config[int]{Rate: 1000, Burst: 10, Cost: func(v int) float64 {
		if v%10 == 9 {
			return 100 // more than the burst: refused as it is posted
		}
		return 1
	}})
	require.NoError(t, err)
	p, err := parallel.Stage(parallel.Config{Limit: 4}, identity)
	require.NoError(t, err)
	b, err := buffer.Stage(buffer.Config[int]{MaxWeight: 50, Weight: func(v int) int {
		if v%10 == 3 {
			return -1 // refused as the parallel stage passes it on
		}
		return 1
	}}, nil)
	require.NoError(t, err)
	var c collected
	res, err := sim.Run(sim.Config{Seed: 5, Arrivals: sim.Bursts{Every: 100 * time.Millisecond, Size: 20}, Duration: time.Second, Drain: true},
		c.chain(compose.Pipe3(r, p, b)))
	require.NoError(t, err)
	require.True(t, res.Finished)

	assert.Equal(t, int64(200), res.Arrived)
	assert.Equal(t, int64(20), res.Agents[0].Refused, "one in ten costs more than the burst")
	assert.Equal(t, int64(180), res.Posted)
	assert.Equal(t, int64(20), res.Agents[2].Refused, "one in ten weighs less than nothing")
	assert.Equal(t, int64(160), res.Agents[2].Taken)
	assert.Len(t, c.values, 160)
	for _, v := range c.values {
		require.NotContains(t, []int{3, 9}, v%10)
	}
	require.Error(t, res.Err, "refusals inside the chain are the buffer's error")
	assert.Contains(t, res.Err.Error(), "refused 20 items")
	assert.NoError(t, res.Agents[0].Err, "refusals at the head are the poster's")
	assert.ErrorIs(t, res.Agents[2].Err, buffer.ErrWeight)
}

func TestRunReportsABrokenAgentOfAChain(t *testing.T) {
	// greedy emits whatever it takes in, whatever the demand it holds.
	greedy := func(s int, m agent.Msg) (int, []agent.Effect) {
		switch m := m.(type) {
		case agent.Input[int]:
			return s, []agent.Effect{agent.Emit[int]{Values: m.Items}, agent.Demand{N: len(m.Items)}}
		case agent.Pull, agent.Close:
			return s, nil
		}
		return s, []agent.Effect{agent.Unhandled{}}
	}
	stage, err := spawn.Stage[int, struct{}](spawn.Spec[int, struct{}, struct{}, int]{Name: "greedy", Evolve: greedy, Queue: 4})
	require.NoError(t, err)
	res, err := sim.Run(sim.Config{Arrivals: sim.Bursts{Every: time.Second, Size: 3}, Duration: time.Second, Demand: 2},
		sim.Chain[int, int]{Stage: stage})
	require.ErrorIs(t, err, sim.ErrBroken)
	assert.Contains(t, err.Error(), "agent greedy emitted 3 values holding demand for 2")
	require.NotNil(t, res, "the result so far")
	assert.Equal(t, int64(3), res.Posted)
}

func TestRunRefusesWhatItCannotRun(t *testing.T) {
	stage := pipeline(t, paced, parallel.Config{Limit: 4}, identity, 10)
	good := sim.Config{Arrivals: sim.Flood{}, Duration: time.Second}
	for name, tc := range map[string]struct {
		cfg   sim.Config
		stage agent.Stage[int, []int]
	}{
		"zero stage":      {good, agent.Stage[int, []int]{}},
		"no arrivals":     {sim.Config{Duration: time.Second}, stage},
		"no duration":     {sim.Config{Arrivals: sim.Flood{}}, stage},
		"bad capacity":    {sim.Config{Arrivals: sim.Flood{}, Duration: time.Second, Capacity: []sim.Capacity{nil, sim.Curve{}}}, stage},
		"more capacities": {sim.Config{Arrivals: sim.Flood{}, Duration: time.Second, Capacity: make([]sim.Capacity, 4)}, stage},
		"negative demand": {sim.Config{Arrivals: sim.Flood{}, Duration: time.Second, Demand: -1}, stage},
	} {
		t.Run(name, func(t *testing.T) {
			res, err := sim.Run(tc.cfg, sim.Chain[int, []int]{Stage: tc.stage})
			require.ErrorIs(t, err, sim.ErrConfig)
			assert.Nil(t, res)
		})
	}
}

// conforms reports the first pair of samples, i before j, between which
// more went through than a token bucket of rate r and burst b lets
// through: more than b + r·(t_j - t_i). counts[k] is how many had gone
// through by the k-th sample.
func conforms(counts []sample, r float64, b int) error {
	for i := range counts {
		for j := i + 1; j < len(counts); j++ {
			n := counts[j].n - counts[i].n
			allowed := float64(b) + r*(counts[j].at-counts[i].at).Seconds() + 1e-9
			if float64(n) > allowed {
				return fmt.Errorf("%d went through from %v to %v, a bucket of %g/s and burst %d allows %.2f",
					n, counts[i].at, counts[j].at, r, b, allowed)
			}
		}
	}
	return nil
}

// sample is a count at an instant.
type sample struct {
	at time.Duration
	n  int64
}

// emitted returns the values emitted by each sample of t.
func emitted(t sim.Trace) []sample {
	out := make([]sample, len(t))
	for i, s := range t {
		out[i] = sample{s.At, s.Emitted}
	}
	return out
}

// started returns the work started by each sample of t.
func started(t sim.Trace) []sample {
	out := make([]sample, len(t))
	for i, s := range t {
		out[i] = sample{s.At, s.Started}
	}
	return out
}

// csv returns the bytes t writes as CSV.
func csv(t *testing.T, tr sim.Trace) []byte {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, tr.WriteCSV(&b))
	return b.Bytes()
}
