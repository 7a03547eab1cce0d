package sim_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/parallel"
	"github.com/evolvekit/evolve/sim"
	"github.com/evolvekit/evolve/spawn"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var knee8 = sim.Curve{Base: 10 * time.Millisecond, Knee: 8, Contention: 0.5}

// alone is a Config whose one agent's work follows c.
func alone(c sim.Capacity, a sim.Arrivals, d time.Duration) sim.Config {
	return sim.Config{Capacity: []sim.Capacity{c}, Arrivals: a, Duration: d}
}

// own is a lone agent of the test's own, named name, with an input queue of
// one item, whose work returns the zero int.
func own(t *testing.T, name string, evolve agent.Evolve[int]) sim.Chain[int, int] {
	t.Helper()
	stage, err := spawn.Stage[int, struct{}](spawn.Spec[int, int, int, int]{Name: name, Evolve: evolve, Queue: 1})
	require.NoError(t, err)
	return sim.Chain[int, int]{Stage: stage}
}

func TestAFixedLimitUnderFloodRunsAtTheCurvesThroughput(t *testing.T) {
	for _, capa := range []sim.Capacity{knee8, sim.Sharing{Capacity: knee8}} {
		for _, limit := range []int{2, 8, 16} {
			res, err := sim.Run(alone(capa, sim.Flood{}, 10*time.Second), parallelAgent(t, limit))
			require.NoError(t, err)
			assert.InEpsilon(t, knee8.Throughput(limit), res.Throughput, 0.01, "%T, limit %d", capa, limit)
			assert.Equal(t, res.Started, res.Done+int64(limit), "%T, limit %d: the limit is always in flight", capa, limit)
			require.Len(t, res.Agents, 1)
			assert.Equal(t, res.Done, res.Agents[0].Done)
		}
	}
}

func TestSameSeedSameTraceByteForByte(t *testing.T) {
	cfg := sim.Config{
		Seed:     7,
		Capacity: []sim.Capacity{sim.Curve{Base: 5 * time.Millisecond, Knee: 4, Contention: 1, Noise: sim.Noise{Jitter: 0.4, Tail: 0.05}}},
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
	assert.Equal(t, ra.Agents[0].Service, rb.Agents[0].Service)
	assert.NotEqual(t, a, c, "another seed, another trace")
	assert.NotEqual(t, ra.Digest, rc.Digest)
	assert.Greater(t, len(ra.Trace), 400)
}

func TestDrainDeliversEverythingPostedAndFinishes(t *testing.T) {
	cfg := alone(knee8, sim.Steady{Rate: 1000, Poisson: true}, 2*time.Second)
	cfg.Seed, cfg.Drain = 3, true
	res, err := sim.Run(cfg, parallelAgent(t, 4))
	require.NoError(t, err)
	assert.True(t, res.Finished)
	assert.Positive(t, res.Posted)
	assert.Equal(t, res.Posted, res.Emitted)
	assert.Equal(t, res.Posted, res.Done)
	assert.Greater(t, res.Arrived, res.Posted, "at 1000/s and 400/s of capacity, a backlog is left outside and dropped")
	assert.Greater(t, res.End, 2*time.Second)
}

func TestTheInputQueueStaysBoundedAndTheRestWaitsOutside(t *testing.T) {
	cfg := alone(knee8, sim.Bursts{Every: 500 * time.Millisecond, Size: 300}, 3*time.Second)
	cfg.Every = 5 * time.Millisecond
	res, err := sim.Run(cfg, parallelAgent(t, 8))
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
	assert.Equal(t, res.Trace, res.Agents[0].Trace, "a lone agent's trace is the run's")
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
	res, err := sim.Run(alone(knee8, sim.Bursts{Every: sim.Never}, 10*time.Second), own(t, "timers", evolve))
	require.NoError(t, err)
	assert.Equal(t, []time.Time{sim.Epoch.Add(2 * time.Second), sim.Epoch.Add(3 * time.Second)}, ticks)
	assert.Equal(t, int64(3), res.Messages, "one Pull and two Ticks")
}

func TestABrokenPromiseStopsTheRun(t *testing.T) {
	for want, fx := range map[string][]agent.Effect{
		"emitted 3 values holding demand for 2":                      {agent.Emit[int]{Values: []int{1, 2, 3}}},
		"gave back 2 input slots, holding 1 items":                   {agent.Demand{N: 2}},
		"started work 1 while it was in flight":                      {agent.Start[int]{ID: 1}, agent.Start[int]{ID: 1}},
		"asked for an effect it cannot ask for: agent.Start[string]": {agent.Start[string]{ID: 1}},
		"did not handle agent.Input[int]":                            {agent.Unhandled{}},
	} {
		evolve := func(s int, m agent.Msg) (int, []agent.Effect) {
			if _, ok := m.(agent.Input[int]); ok {
				return s, fx
			}
			return s, nil
		}
		cfg := alone(knee8, sim.Flood{}, time.Second)
		cfg.Demand = 2
		_, err := sim.Run(cfg, own(t, "broken", evolve))
		assert.ErrorIs(t, err, sim.ErrBroken, want)
		assert.ErrorContains(t, err, "agent broken "+want+" (at 0s)")
	}
}

func TestRepliesAreIgnored(t *testing.T) {
	evolve := func(s int, m agent.Msg) (int, []agent.Effect) {
		return s, []agent.Effect{agent.Reply[string]{To: 1, Value: "x"}}
	}
	_, err := sim.Run(alone(knee8, sim.Flood{}, time.Second), own(t, "replies", evolve))
	assert.NoError(t, err)
}

func TestRunRejectsABadConfig(t *testing.T) {
	ok := alone(knee8, sim.Flood{}, time.Second)
	with := func(f func(*sim.Config)) sim.Config { c := ok; f(&c); return c }
	capacity := func(c sim.Capacity) sim.Config {
		return with(func(cfg *sim.Config) { cfg.Capacity = []sim.Capacity{c} })
	}
	arrivals := func(a sim.Arrivals) sim.Config { return with(func(cfg *sim.Config) { cfg.Arrivals = a }) }
	noise := func(n sim.Noise) sim.Config { return capacity(sim.Curve{Base: time.Second, Knee: 1, Noise: n}) }
	inf := math.Inf(1)
	for _, c := range []struct {
		cfg  sim.Config
		want string
	}{
		{with(func(c *sim.Config) { c.Capacity = make([]sim.Capacity, 2) }), "sim: capacities must not outnumber the chain's 1 agents, got 2"},
		{with(func(c *sim.Config) { c.Arrivals = nil }), "sim: arrivals must not be nil"},
		{with(func(c *sim.Config) { c.Duration = 0 }), "sim: duration must be positive, got 0s"},
		{with(func(c *sim.Config) { c.Every = -1 }), "sim: sample period must not be negative, got -1ns"},
		{with(func(c *sim.Config) { c.Demand = -1 }), "sim: demand must not be negative, got -1"},
		{capacity(sim.Curve{Base: time.Second}), "sim: knee must be at least 1, got 0"},
		{capacity(sim.Curve{Knee: 1}), "sim: base service time must be positive, got 0s"},
		{capacity(sim.Curve{Base: 1, Knee: 1, Contention: -1}), "sim: contention must be a finite number, at least 0, got -1"},
		{capacity(sim.Curve{Base: 1, Knee: 1, Contention: inf}), "sim: contention must be a finite number, at least 0, got +Inf"},
		{noise(sim.Noise{Jitter: 4}), "sim: jitter must be between 0 and 3, got 4"},
		{noise(sim.Noise{Tail: 1.5}), "sim: tail must be a probability, got 1.5"},
		{noise(sim.Noise{Shape: -1}), "sim: tail shape must be a finite number, at least 0, got -1"},
		{noise(sim.Noise{Cap: 0.5}), "sim: tail cap must be at least 1, got 0.5"},
		{capacity(sim.Step{Before: knee8}), "sim: a capacity step needs a capacity before and after"},
		{capacity(sim.Step{Before: knee8, After: sim.Curve{Base: 1, Knee: 1, Contention: -1}}),
			"sim: contention must be a finite number, at least 0, got -1"},
		{capacity(sim.Sharing{}), "sim: processor sharing needs a capacity"},
		{capacity(sim.Sharing{Capacity: sim.Curve{Knee: 1}}), "sim: base service time must be positive, got 0s"},
		{arrivals(sim.Steady{}), "sim: rate must be a positive number, got 0"},
		{arrivals(sim.Steady{Rate: inf}), "sim: rate must be a positive number, got +Inf"},
		{arrivals(sim.Batches{Max: 1}), "sim: batch interval must be positive, got 0s"},
		{arrivals(sim.Batches{Every: 1, Max: -1}), "sim: batch size must not be negative, got -1"},
		{arrivals(sim.Bursts{Size: 1}), "sim: burst interval must be positive, got 0s"},
		{arrivals(sim.Bursts{Every: 1, Size: -1}), "sim: burst size must not be negative, got -1"},
		{arrivals(sim.Spells{On: 1}), "sim: spells need arrivals for their busy spells"},
		{arrivals(sim.Spells{Of: sim.Flood{}, Off: 1}), "sim: busy spells must be positive and idle ones not negative, got 0s and 1ns"},
		{arrivals(sim.Spells{Of: sim.Steady{}, On: 1}), "sim: rate must be a positive number, got 0"},
		{arrivals(sim.Switch{Before: sim.Flood{}}), "sim: an arrivals switch needs arrivals before and after"},
		{arrivals(sim.Switch{Before: sim.Flood{}, After: sim.Bursts{}}), "sim: burst interval must be positive, got 0s"},
	} {
		_, err := sim.Run(c.cfg, parallelAgent(t, 1))
		assert.EqualError(t, err, c.want)
		assert.ErrorIs(t, err, sim.ErrConfig)
	}
	_, err := sim.Run(ok, sim.Chain[int, int]{})
	assert.EqualError(t, err, "sim: the zero Stage cannot run; make one with an agent package's Stage")
	assert.True(t, errors.Is(err, sim.ErrConfig))
}

func TestAnAgentWithoutACapacityDoesItsWorkAtOnce(t *testing.T) {
	cfg := alone(nil, sim.Bursts{Every: sim.Never, Size: 100}, time.Second)
	cfg.Drain = true
	res, err := sim.Run(cfg, parallelAgent(t, 4))
	require.NoError(t, err)
	assert.True(t, res.Finished)
	assert.Equal(t, int64(100), res.Emitted)
	assert.Equal(t, time.Second, res.End, "all done at the start; closed at Duration")
	assert.Zero(t, res.Agents[0].Service.Quantile(1))
}

// errSlow is what slow's Validate reports.
var errSlow = errors.New("slow: service time must be positive")

// slow is a Capacity of the test's own that checks its own setting: every
// piece of work takes d.
type slow struct{ d time.Duration }

func (s slow) Service(*rand.Rand, time.Duration, int) time.Duration { return s.d }

func (s slow) Validate() error {
	if s.d <= 0 {
		return errSlow
	}
	return nil
}

// trickle is an Arrivals of the test's own with no Validate method.
type trickle struct{}

func (trickle) Next(*rand.Rand, time.Duration) (int, time.Duration) { return 1, time.Millisecond }

// kneeCap is a Curve of the test's own, with a bound on its knee.
type kneeCap struct {
	sim.Curve
	max int
}

func (k kneeCap) Validate() error {
	if k.Knee > k.max {
		return fmt.Errorf("knee %d above %d", k.Knee, k.max)
	}
	return nil
}

func TestRunChecksArrivalsAndCapacitiesOfTheUsersOwn(t *testing.T) {
	run := func(c sim.Capacity, a sim.Arrivals) error {
		_, err := sim.Run(alone(c, a, time.Second), parallelAgent(t, 1))
		return err
	}
	assert.ErrorIs(t, run(slow{}, sim.Flood{}), errSlow)
	assert.ErrorIs(t, run(sim.Step{Before: knee8, After: slow{}}, sim.Flood{}), errSlow, "inside a Step")
	assert.NoError(t, run(slow{d: time.Millisecond}, trickle{}))
	assert.NoError(t, run(knee8, sim.Switch{At: time.Second, Before: trickle{}, After: sim.Flood{}}))
	assert.EqualError(t, run(kneeCap{Curve: knee8, max: 4}, sim.Flood{}), "knee 8 above 4")
	assert.EqualError(t, run(kneeCap{Curve: sim.Curve{Base: time.Millisecond}, max: 4}, sim.Flood{}),
		"sim: knee must be at least 1, got 0", "the embedded Curve is checked too")
	assert.EqualError(t, run(sim.Sharing{Capacity: kneeCap{Curve: knee8, max: 4}}, sim.Flood{}), "knee 8 above 4", "inside a Sharing")
}

// picky starts one piece of work per item and takes the Done of a string
// result only: the simulator's Done carries an int.
func picky(s int, m agent.Msg) (int, []agent.Effect) {
	switch m.(type) {
	case agent.Pull:
		return s, nil
	case agent.Input[int]:
		return s + 1, []agent.Effect{agent.Start[int]{ID: uint64(s)}}
	case agent.Done[string]:
		return s, []agent.Effect{agent.Demand{N: 1}}
	}
	return s, []agent.Effect{agent.Unhandled{}}
}

func TestAMessageTheAgentDoesNotHandleStopsTheRun(t *testing.T) {
	res, err := sim.Run(alone(knee8, sim.Flood{}, time.Second), own(t, "picky", picky))
	require.ErrorIs(t, err, sim.ErrBroken)
	assert.EqualError(t, err, "sim: the agent broke its contract: agent picky did not handle agent.Done[int] (at 10ms)")
	require.NotNil(t, res, "the result so far")
	assert.Equal(t, int64(3), res.Messages, "a Pull, an Input, a Done")
	assert.Equal(t, int64(1), res.Done)
	assert.Equal(t, 10*time.Millisecond, res.End)
}

func TestAnUnhandledPullStopsTheRunAtOnce(t *testing.T) {
	refuse := func(s int, _ agent.Msg) (int, []agent.Effect) {
		return s, []agent.Effect{agent.Demand{N: 0}, agent.Unhandled{}, agent.Finish{}}
	}
	res, err := sim.Run(alone(knee8, sim.Flood{}, time.Second), own(t, "refuse", refuse))
	assert.EqualError(t, err, "sim: the agent broke its contract: agent refuse did not handle agent.Pull (at 0s)")
	assert.False(t, res.Finished, "the effects after Unhandled are not performed")
	assert.Equal(t, int64(1), res.Messages)
}

// worker keeps one piece of work in flight per input slot; with cancel it
// asks for Cancel each time it starts one.
func worker(cancel bool) agent.Evolve[int] {
	return func(s int, m agent.Msg) (int, []agent.Effect) {
		switch m := m.(type) {
		case agent.Pull:
			return s, nil
		case agent.Input[int]:
			fx := []agent.Effect{agent.Start[int]{ID: uint64(s)}}
			if cancel {
				fx = append(fx, agent.Cancel{Cause: errors.New("enough")})
			}
			return s + 1, fx
		case agent.Done[int]:
			return s, []agent.Effect{agent.Emit[int]{Values: []int{m.Result}}, agent.Demand{N: 1}}
		}
		return s, []agent.Effect{agent.Unhandled{}}
	}
}

func TestCancelLeavesSimulatedWorkToTakeItsTime(t *testing.T) {
	run := func(cancel bool) *sim.Result {
		stage, err := spawn.Stage[int, struct{}](spawn.Spec[int, int, int, int]{Evolve: worker(cancel), Queue: 2})
		require.NoError(t, err)
		cfg := alone(sim.Curve{Base: 10 * time.Millisecond, Knee: 4, Noise: sim.Noise{Jitter: 0.3}}, sim.Flood{}, time.Second)
		cfg.Seed = 5
		res, err := sim.Run(cfg, sim.Chain[int, int]{Stage: stage})
		require.NoError(t, err)
		return res
	}
	plain, cancelled := run(false), run(true)
	assert.Positive(t, cancelled.Done)
	assert.Equal(t, cancelled.Done, cancelled.Emitted, "every piece of work came back")
	assert.Equal(t, plain.Digest, cancelled.Digest, "the same run, event for event")
	assert.Equal(t, plain.Agents[0].Service, cancelled.Agents[0].Service)
	assert.GreaterOrEqual(t, cancelled.Agents[0].Service.Quantile(0.5), 7*time.Millisecond, "work took its service time")
}

func TestAParallelAgentThatCancelsOnErrorFinishesInTheSimulator(t *testing.T) {
	failAt3 := func(_ context.Context, v int) (int, error) {
		if v == 3 {
			return 0, errors.New("three")
		}
		return v, nil
	}
	stage, err := parallel.Stage(parallel.Config{Limit: 4, MaxBatch: 1, Queue: 8, CancelOnError: true}, failAt3)
	require.NoError(t, err)
	cfg := alone(knee8, sim.Bursts{Every: sim.Never, Size: 20}, time.Second)
	cfg.Drain = true
	res, err := sim.Run(cfg, sim.Chain[int, int]{Stage: stage, Item: func(n uint64) int { return int(n) }})
	require.NoError(t, err)
	assert.True(t, res.Finished)
	assert.ErrorContains(t, res.Err, "three")
	assert.Equal(t, int64(20), res.Posted)
	st := res.Agents[0]
	assert.Equal(t, int64(20), st.Emitted, "every item ends once, failed or not")
	assert.Equal(t, st.Emitted, res.Emitted+st.Declined, "the failed ones are not passed on")
	assert.Positive(t, st.Declined)
	assert.Less(t, res.Started, int64(20), "items after the failure are not started")
	assert.Equal(t, res.Started, res.Done, "what was started, cancelled or not, came back")
}

func TestSharingStretchesTheWorkInFlight(t *testing.T) {
	// two starts a piece of work at once and another 5ms later (by a
	// timer), and records when each is done.
	done := map[uint64]time.Duration{}
	two := func(s int, m agent.Msg) (int, []agent.Effect) {
		switch m := m.(type) {
		case agent.Pull:
			return s, []agent.Effect{agent.Start[int]{ID: 1}, agent.Timer{Tag: 1, Delay: 5 * time.Millisecond}}
		case agent.Tick:
			return s, []agent.Effect{agent.Start[int]{ID: 2}}
		case agent.Done[int]:
			done[m.ID] = m.At.Sub(sim.Epoch)
		}
		return s, nil
	}
	c := sim.Curve{Base: 10 * time.Millisecond, Knee: 1}
	for _, capa := range []sim.Capacity{c, sim.Sharing{Capacity: c}} {
		clear(done)
		res, err := sim.Run(alone(capa, sim.Bursts{Every: sim.Never}, time.Second), own(t, "two", two))
		require.NoError(t, err)
		assert.Equal(t, int64(2), res.Done)
		if _, shared := capa.(sim.Sharing); !shared {
			// Fixed when each starts: 10ms alone; 20ms for the second,
			// which started with two in flight.
			assert.Equal(t, map[uint64]time.Duration{1: 10 * time.Millisecond, 2: 25 * time.Millisecond}, done)
			continue
		}
		// Shared: the first slows to half speed when the second starts, and
		// the second speeds up when the first is done.
		assert.Equal(t, map[uint64]time.Duration{1: 15 * time.Millisecond, 2: 20 * time.Millisecond}, done)
		assert.Equal(t, 15*time.Millisecond, res.Agents[0].Service.Mean(), "and each took 15ms")
	}
}
