package sim_test

import (
	"bytes"
	"errors"
	"testing"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/agent/sim"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var knee8 = sim.Curve{Base: 10 * time.Millisecond, Knee: 8, Contention: 0.5}

func TestAFixedLimitUnderFloodRunsAtTheCurvesThroughput(t *testing.T) {
	for _, limit := range []int{2, 8, 16} {
		res, err := sim.Run(sim.Config{Capacity: knee8, Arrivals: sim.Flood{}, Duration: 10 * time.Second}, parallelAgent(t, limit))
		require.NoError(t, err)
		assert.InEpsilon(t, knee8.Throughput(limit), res.Throughput(), 0.01, "limit %d", limit)
		assert.Equal(t, res.Started, res.Done+int64(limit), "limit %d: the limit is always in flight", limit)
	}
}

func TestSameSeedSameTraceByteForByte(t *testing.T) {
	cfg := sim.Config{
		Seed:     7,
		Capacity: sim.Curve{Base: 5 * time.Millisecond, Knee: 4, Contention: 1, Noise: sim.Noise{Jitter: 0.4, Tail: 0.05}},
		Arrivals: sim.Spells{Of: sim.Batches{Every: 20 * time.Millisecond, Max: 12}, On: time.Second, Off: 300 * time.Millisecond},
		Duration: 5 * time.Second,
		Every:    10 * time.Millisecond,
		Drain:    true,
	}
	trace := func(seed uint64) ([]byte, *sim.Result) {
		cfg.Seed = seed
		res, err := sim.Run(cfg, parallelAgent(t, 6))
		require.NoError(t, err)
		var b bytes.Buffer
		require.NoError(t, res.Trace.WriteCSV(&b))
		return b.Bytes(), res
	}
	a, ra := trace(7)
	b, rb := trace(7)
	c, rc := trace(8)
	assert.Equal(t, a, b)
	assert.Equal(t, ra.Digest, rb.Digest)
	assert.Equal(t, ra.Service, rb.Service)
	assert.NotEqual(t, a, c, "another seed, another trace")
	assert.NotEqual(t, ra.Digest, rc.Digest)
	assert.Greater(t, len(ra.Trace), 400)
}

func TestDrainDeliversEverythingPostedAndFinishes(t *testing.T) {
	res, err := sim.Run(sim.Config{
		Seed:     3,
		Capacity: knee8,
		Arrivals: sim.Steady{Rate: 1000, Poisson: true},
		Duration: 2 * time.Second,
		Drain:    true,
	}, parallelAgent(t, 4))
	require.NoError(t, err)
	assert.True(t, res.Finished)
	assert.Positive(t, res.Posted)
	assert.Equal(t, res.Posted, res.Emitted)
	assert.Equal(t, res.Posted, res.Done)
	assert.Greater(t, res.Arrived, res.Posted, "at 1000/s and 400/s of capacity, a backlog is left outside and dropped")
	assert.Greater(t, res.End, 2*time.Second)
}

func TestTheInputQueueStaysBoundedAndTheRestWaitsOutside(t *testing.T) {
	res, err := sim.Run(sim.Config{
		Capacity: knee8,
		Arrivals: sim.Bursts{Every: 500 * time.Millisecond, Size: 300},
		Duration: 3 * time.Second,
		Every:    5 * time.Millisecond,
	}, parallelAgent(t, 8))
	require.NoError(t, err)
	backlogged := false
	for _, s := range res.Trace {
		assert.LessOrEqual(t, s.Queued, 64)
		assert.LessOrEqual(t, s.InFlight, 8)
		assert.Equal(t, 8, s.Limit)
		backlogged = backlogged || s.Backlog > 0
	}
	assert.True(t, backlogged)
	assert.Equal(t, int64(6*300), res.Arrived)
}

func TestTimersTickOnTimeAndDisarmedOnesDoNot(t *testing.T) {
	var ticks []time.Time
	evolve := func(s int, m agent.Msg) (int, []agent.Effect) {
		switch m := m.(type) {
		case agent.Pull:
			return s, []agent.Effect{agent.Timer{Tag: 1, Delay: time.Second}, agent.Timer{Tag: 2, Delay: 2 * time.Second},
				agent.Timer{Tag: 1, Delay: 3 * time.Second}, agent.Timer{Tag: 3, Delay: time.Second}, agent.Disarm{Tag: 3}}
		case agent.Tick:
			ticks = append(ticks, m.At)
			return s + int(m.Tag), nil
		}
		return s, nil
	}
	res, err := sim.Run(sim.Config{Capacity: knee8, Arrivals: sim.Bursts{Every: sim.Never}, Duration: 10 * time.Second},
		sim.Agent[int, int, int, int, int]{Evolve: evolve, Queue: 1})
	require.NoError(t, err)
	assert.Equal(t, []time.Time{sim.Epoch.Add(2 * time.Second), sim.Epoch.Add(3 * time.Second)}, ticks)
	assert.Equal(t, int64(3), res.Messages, "one Pull and two Ticks")
}

func TestABrokenPromiseStopsTheRun(t *testing.T) {
	for name, fx := range map[string][]agent.Effect{
		"emit beyond demand":  {agent.Emit[int]{Values: []int{1, 2, 3}}},
		"too many slots back": {agent.Demand{N: 2}},
		"one ID twice":        {agent.Start[int]{ID: 1}, agent.Start[int]{ID: 1}},
		"a foreign effect":    {agent.Start[string]{ID: 1}},
	} {
		evolve := func(s int, m agent.Msg) (int, []agent.Effect) {
			if _, ok := m.(agent.Input[int]); ok {
				return s, fx
			}
			return s, nil
		}
		_, err := sim.Run(sim.Config{Capacity: knee8, Arrivals: sim.Flood{}, Duration: time.Second, Demand: 2},
			sim.Agent[int, int, int, int, int]{Evolve: evolve, Queue: 1})
		assert.ErrorIs(t, err, sim.ErrBroken, name)
	}
}

func TestRepliesAreIgnored(t *testing.T) {
	evolve := func(s int, m agent.Msg) (int, []agent.Effect) {
		return s, []agent.Effect{agent.Reply[string]{To: 1, Value: "x"}}
	}
	_, err := sim.Run(sim.Config{Capacity: knee8, Arrivals: sim.Flood{}, Duration: time.Second},
		sim.Agent[int, int, int, int, int]{Evolve: evolve, Queue: 1})
	assert.NoError(t, err)
}

func TestRunRejectsABadConfig(t *testing.T) {
	ok := sim.Config{Capacity: knee8, Arrivals: sim.Flood{}, Duration: time.Second}
	with := func(f func(*sim.Config)) sim.Config { c := ok; f(&c); return c }
	for _, c := range []struct {
		cfg  sim.Config
		want string
	}{
		{with(func(c *sim.Config) { c.Capacity = nil }), "sim: capacity must not be nil"},
		{with(func(c *sim.Config) { c.Arrivals = nil }), "sim: arrivals must not be nil"},
		{with(func(c *sim.Config) { c.Duration = 0 }), "sim: duration must be positive, got 0s"},
		{with(func(c *sim.Config) { c.Every = -1 }), "sim: sample period must not be negative, got -1ns"},
		{with(func(c *sim.Config) { c.Demand = -1 }), "sim: demand must not be negative, got -1"},
		{with(func(c *sim.Config) { c.Capacity = sim.Curve{Base: time.Second} }), "sim: knee must be at least 1, got 0"},
		{with(func(c *sim.Config) { c.Capacity = sim.Curve{Knee: 1} }), "sim: base service time must be positive, got 0s"},
		{with(func(c *sim.Config) { c.Arrivals = sim.Steady{} }), "sim: rate must be a positive number, got 0"},
		{with(func(c *sim.Config) { c.Arrivals = sim.Switch{Before: sim.Flood{}} }), "sim: an arrivals switch needs arrivals before and after"},
	} {
		_, err := sim.Run(c.cfg, parallelAgent(t, 1))
		assert.EqualError(t, err, c.want)
		assert.ErrorIs(t, err, sim.ErrConfig)
	}
	_, err := sim.Run(ok, sim.Agent[int, int, int, int, int]{Queue: 1})
	assert.EqualError(t, err, "sim: evolve must not be nil")
	a := parallelAgent(t, 1)
	a.Queue = 0
	_, err = sim.Run(ok, a)
	assert.EqualError(t, err, "sim: queue must be at least 1, got 0")
	assert.True(t, errors.Is(err, sim.ErrConfig))
}
