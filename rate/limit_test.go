package rate_test

import (
	"context"
	"math"
	"testing"
	"testing/synctest"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/agent/agenttest"
	"github.com/evolvekit/evolve/compose"
	"github.com/evolvekit/evolve/rate"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// length costs a string its length in tokens.
func length(s string) float64 { return float64(len(s)) }

func TestSetLimitChecksCostsAgainstTheNewBurst(t *testing.T) {
	agenttest.InBubble(t, func(t *testing.T, rt *agent.Runtime) {
		got := newClocked[string]()
		a, err := rate.New(rt, rate.Config[string]{Rate: 1, Burst: 3, Cost: length}, got.sink)
		require.NoError(t, err)
		ctx := context.Background()

		assert.EqualError(t, a.Post(ctx, "abcd"), "rate: cost 4 exceeds burst 3")
		require.NoError(t, rate.SetLimit(a, rate.Limit{Rate: 1, Burst: 4}))
		require.NoError(t, a.TryPost("abcd"), "the larger burst takes it")
		require.NoError(t, rate.SetLimit(a, rate.Limit{Rate: 1, Burst: 2}))
		err = a.Post(ctx, "abc")
		assert.EqualError(t, err, "rate: cost 3 exceeds burst 2")
		assert.ErrorIs(t, err, rate.ErrCost)
		assert.ErrorIs(t, a.TryPost("abc"), rate.ErrCost)
		require.NoError(t, a.Post(ctx, "ab"))
		a.Close()
		require.NoError(t, a.Wait(ctx))

		// The bucket held 3 tokens, kept 2 when the burst shrank, and
		// charged "abcd" the whole new burst; "ab" waited 2s for 2 more.
		assert.Equal(t, []string{"abcd", "ab"}, got.values)
		assert.Equal(t, []time.Duration{0, 2 * time.Second}, got.at)
		st, err := a.Status(ctx)
		require.NoError(t, err)
		assert.Equal(t, rate.Status{Load: agent.Load{Done: 2, Demand: agent.Unbounded - 2},
			Rate: 1, Burst: 2, Queue: agent.DefaultQueue, Closed: true}, st)
	})
}

func TestSetLimitRefusesABadLimitAndKeepsTheOldOne(t *testing.T) {
	agenttest.InBubble(t, func(t *testing.T, rt *agent.Runtime) {
		a, err := rate.New(rt, rate.Config[string]{Rate: 10, Burst: 3, Cost: length}, nil)
		require.NoError(t, err)
		for _, tc := range []struct {
			limit rate.Limit
			want  string
		}{
			{rate.Limit{}, "rate: rate must be a positive number, got 0"},
			{rate.Limit{Rate: -1, Burst: 5}, "rate: rate must be a positive number, got -1"},
			{rate.Limit{Rate: math.NaN(), Burst: 5}, "rate: rate must be a positive number, got NaN"},
			{rate.Limit{Rate: math.Inf(1), Burst: 5}, "rate: rate must be finite, got +Inf"},
			{rate.Limit{Rate: 5, Burst: 0}, "rate: burst must be at least 1, got 0"},
			{rate.Limit{Rate: 5, Burst: -5}, "rate: burst must be at least 1, got -5"},
		} {
			err := rate.SetLimit(a, tc.limit)
			assert.EqualError(t, err, tc.want)
			assert.ErrorIs(t, err, rate.ErrConfig)
		}
		ctx := context.Background()
		assert.ErrorIs(t, a.Post(ctx, "abcd"), rate.ErrCost, "costs are still checked against burst 3")
		require.NoError(t, a.Post(ctx, "abc"))
		st, err := a.Status(ctx)
		require.NoError(t, err)
		assert.Equal(t, 10.0, st.Rate)
		assert.Equal(t, 3, st.Burst)
		assert.Equal(t, 1, st.Done)
		a.Close()
		require.NoError(t, a.Wait(ctx))
	})
}

// notRate is a handle that a rate agent's handle hides behind.
type notRate struct {
	agent.Handle[int, rate.Status]
}

func TestSetLimitRefusesAHandleNewDidNotReturn(t *testing.T) {
	agenttest.InBubble(t, func(t *testing.T, rt *agent.Runtime) {
		a, err := rate.New(rt, rate.Config[int]{Rate: 1, Burst: 1}, nil)
		require.NoError(t, err)
		err = rate.SetLimit[int](notRate{a}, rate.Limit{Rate: 2, Burst: 2})
		require.Error(t, err)
		assert.NotErrorIs(t, err, rate.ErrConfig)
		st, err := a.Status(context.Background())
		require.NoError(t, err)
		assert.Equal(t, 1.0, st.Rate)
		a.Close()
		require.NoError(t, a.Wait(context.Background()))
	})
}

func TestABadCostIsRefusedBeforeAnythingIsPosted(t *testing.T) {
	agenttest.InBubble(t, func(t *testing.T, rt *agent.Runtime) {
		costs := map[string]float64{"nan": math.NaN(), "minus": -0.5, "inf": math.Inf(1), "big": 1.5}
		cost := func(s string) float64 {
			if s == "panic" {
				panic("cost bug")
			}
			if c, ok := costs[s]; ok {
				return c
			}
			return 1
		}
		got := newClocked[string]()
		a, err := rate.New(rt, rate.Config[string]{Rate: 1, Burst: 1, Queue: 1, Cost: cost}, got.sink)
		require.NoError(t, err)
		ctx := context.Background()
		require.NoError(t, a.Post(ctx, "a")) // passes at once: its slot is back
		synctest.Wait()
		require.NoError(t, a.Post(ctx, "b")) // waits a second, holding the one slot
		assert.ErrorIs(t, a.TryPost("c"), agent.ErrFull)

		for _, bad := range []string{"nan", "minus", "inf", "big"} {
			// Post would block on a full queue: a bad cost returns at once.
			assert.ErrorIs(t, a.Post(ctx, bad), rate.ErrCost, bad)
			assert.ErrorIs(t, a.TryPost(bad), rate.ErrCost, bad)
		}
		assert.EqualError(t, a.Post(ctx, "inf"), "rate: cost +Inf exceeds burst 1")
		assert.EqualError(t, a.TryPost("big"), "rate: cost 1.5 exceeds burst 1")
		assert.PanicsWithValue(t, "cost bug", func() { _ = a.TryPost("panic") }, "Cost runs in the caller")
		st, err := a.Status(ctx)
		require.NoError(t, err)
		assert.Equal(t, agent.Load{Queued: 1, Done: 1, Demand: agent.Unbounded - 1}, st.Load, "only b waits")

		a.Close()
		require.NoError(t, a.Wait(ctx))
		assert.Equal(t, []string{"a", "b"}, got.values)
		assert.Equal(t, []time.Duration{0, time.Second}, got.at)
	})
}

func TestStagePricesWhatEntersIt(t *testing.T) {
	agenttest.InBubble(t, func(t *testing.T, rt *agent.Runtime) {
		wide, err := rate.Stage(rate.Config[string]{Rate: 1000, Burst: 3, Cost: length, Name: "wide"})
		require.NoError(t, err)
		narrow, err := rate.Stage(rate.Config[string]{Rate: 1000, Burst: 2, Cost: length, Name: "narrow"})
		require.NoError(t, err)
		got := newClocked[string]()
		c, err := compose.Start(rt, compose.Pipe2(wide, narrow), got.sink)
		require.NoError(t, err)
		ctx := context.Background()

		err = c.Post(ctx, "abcd")
		assert.EqualError(t, err, "rate: cost 4 exceeds burst 3", "the head stage prices what is posted")
		assert.ErrorIs(t, c.TryPost("abcd"), rate.ErrCost)
		for _, s := range []string{"a", "abc", "ab"} {
			require.NoError(t, c.Post(ctx, s))
		}
		c.Close()
		err = c.Wait(ctx)
		assert.ErrorIs(t, err, rate.ErrCost, "what the second stage refused is reported")
		assert.ErrorContains(t, err, "narrow")
		assert.ErrorContains(t, err, "refused 1 items")
		assert.Equal(t, []string{"a", "ab"}, got.values)

		st, err := c.Status(ctx)
		require.NoError(t, err)
		require.Len(t, st.Agents, 2)
		assert.Equal(t, 3, st.Agents[0].Done)
		assert.Equal(t, 2, st.Agents[1].Done)
		assert.Equal(t, 2, st.Agents[1].Detail.(rate.Status).Burst)
	})
}

func TestStageRejectsABadConfig(t *testing.T) {
	_, err := rate.Stage(rate.Config[int]{Rate: 1})
	assert.EqualError(t, err, "rate: burst must be at least 1, got 0")
	assert.ErrorIs(t, err, rate.ErrConfig)
	_, err = rate.Stage(rate.Config[int]{Rate: 1, Burst: 1, Queue: -3})
	assert.ErrorIs(t, err, rate.ErrConfig)
}
