package rate_test

import (
	"bytes"
	"context"
	"github.com/evolvekit/evolve/internal/testing/logline"
	"math"
	"testing"
	"testing/synctest"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/agent/agenttest"
	"github.com/evolvekit/evolve/rate"
	"github.com/rs/zerolog"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// clocked is a sink that records when each value arrived, in the virtual
// time of a synctest bubble. It is called on the agent's goroutine; read it
// after Wait or Stop.
type clocked[T any] struct {
	start  time.Time
	values []T
	at     []time.Duration
}

func newClocked[T any]() *clocked[T] { return &clocked[T]{start: time.Now()} }

func (c *clocked[T]) sink(v T) {
	c.values = append(c.values, v)
	c.at = append(c.at, time.Since(c.start))
}

func TestItemsArriveAtTheExpectedInstants(t *testing.T) {
	agenttest.InBubble(t, func(t *testing.T, rt *agent.Runtime) {
		got := newClocked[int]()
		a, err := rate.New(rt, rate.Config[int]{Rate: 10, Burst: 5}, got.sink)
		require.NoError(t, err)
		ctx := context.Background()
		for i := range 100 {
			require.NoError(t, a.Post(ctx, i)) // blocks while the queue of 64 is full
		}
		a.Close()
		require.NoError(t, a.Wait(ctx))

		want := make([]time.Duration, 100)
		for i := range want {
			want[i] = time.Duration(max(i-4, 0)) * 100 * time.Millisecond
		}
		assert.Equal(t, seq(100), got.values)
		assert.Equal(t, want, got.at, "the first 5 at once, then one every 100ms")
		assert.Equal(t, 9500*time.Millisecond, time.Since(got.start), "Wait returned with the last item")
	})
}

func TestSetLimitWhileRunning(t *testing.T) {
	agenttest.InBubble(t, func(t *testing.T, rt *agent.Runtime) {
		got := newClocked[int]()
		a, err := rate.New(rt, rate.Config[int]{Rate: 10, Burst: 1}, got.sink)
		require.NoError(t, err)
		ctx := context.Background()
		for i := range 10 {
			require.NoError(t, a.Post(ctx, i))
		}
		time.Sleep(250 * time.Millisecond)
		assert.ErrorIs(t, rate.SetLimit(a, rate.Limit{Rate: 100, Burst: 0}), rate.ErrConfig)
		// Half a token refilled since 200ms at 10/s; the other half takes
		// 5ms at 100/s, and each next token 10ms.
		require.NoError(t, rate.SetLimit(a, rate.Limit{Rate: 100, Burst: 1}))
		a.Close()
		require.NoError(t, a.Wait(ctx))

		ms := time.Millisecond
		assert.Equal(t, []time.Duration{0, 100 * ms, 200 * ms, 255 * ms, 265 * ms, 275 * ms, 285 * ms, 295 * ms, 305 * ms, 315 * ms}, got.at)
		st, err := a.Status(ctx)
		require.NoError(t, err)
		assert.Equal(t, 100.0, st.Rate)
		assert.Equal(t, 10, st.Done)
	})
}

func TestCostFunc(t *testing.T) {
	agenttest.InBubble(t, func(t *testing.T, rt *agent.Runtime) {
		costs := map[string]float64{"nan": math.NaN(), "minus": -1}
		cost := func(s string) float64 {
			if c, ok := costs[s]; ok {
				return c
			}
			return float64(len(s))
		}
		got := newClocked[string]()
		a, err := rate.New(rt, rate.Config[string]{Rate: 1, Burst: 3, Cost: cost}, got.sink)
		require.NoError(t, err)
		ctx := context.Background()

		err = a.Post(ctx, "abcde")
		assert.EqualError(t, err, "rate: cost 5 exceeds burst 3")
		assert.ErrorIs(t, err, rate.ErrCost)
		assert.EqualError(t, a.TryPost("abcd"), "rate: cost 4 exceeds burst 3")
		assert.EqualError(t, a.Post(ctx, "nan"), "rate: cost must be a number, got NaN")
		assert.EqualError(t, a.TryPost("minus"), "rate: cost must not be negative, got -1")

		require.NoError(t, a.Post(ctx, "ab"))  // 1 token left
		require.NoError(t, a.Post(ctx, "abc")) // waits 2s for 3 tokens
		require.NoError(t, a.Post(ctx, ""))    // cost 0 counts as 1: waits behind it, 1s more
		require.NoError(t, rate.SetLimit(a, rate.Limit{Rate: 1, Burst: 5}))
		require.NoError(t, a.Post(ctx, "abcde"), "a larger burst takes larger costs")
		a.Close()
		require.NoError(t, a.Wait(ctx))

		assert.Equal(t, []string{"ab", "abc", "", "abcde"}, got.values)
		assert.Equal(t, []time.Duration{0, 2 * time.Second, 3 * time.Second, 8 * time.Second}, got.at)
	})
}

func TestCloseWaitAndPostAfterClose(t *testing.T) {
	agenttest.InBubble(t, func(t *testing.T, rt *agent.Runtime) {
		got := newClocked[int]()
		a, err := rate.New(rt, rate.Config[int]{Rate: 2, Burst: 1, Name: "slow"}, got.sink)
		require.NoError(t, err)
		assert.Equal(t, "slow", a.Name())
		ctx := context.Background()
		for i := range 3 {
			require.NoError(t, a.Post(ctx, i))
		}
		a.Close()
		a.Close() // harmless
		assert.ErrorIs(t, a.Post(ctx, 9), agent.ErrClosed)
		assert.ErrorIs(t, a.TryPost(9), agent.ErrClosed)
		select {
		case <-a.Done():
			t.Fatal("done before the queue was empty")
		default:
		}
		require.NoError(t, a.Wait(ctx))
		<-a.Done()
		assert.Equal(t, time.Second, time.Since(got.start))
		assert.Equal(t, []int{0, 1, 2}, got.values)
		st, err := a.Status(ctx)
		require.NoError(t, err)
		assert.Equal(t, rate.Status{Load: agent.Load{Done: 3, Demand: agent.Unbounded - 3},
			Rate: 2, Burst: 1, Tokens: 0, Queue: agent.DefaultQueue, Closed: true}, st)
	})
}

func TestTryPostReportsAFullQueue(t *testing.T) {
	agenttest.InBubble(t, func(t *testing.T, rt *agent.Runtime) {
		a, err := rate.New(rt, rate.Config[int]{Rate: 1, Burst: 1, Queue: 2}, nil)
		require.NoError(t, err)
		require.NoError(t, a.TryPost(1)) // passes at once and gives its slot back
		synctest.Wait()
		require.NoError(t, a.TryPost(2))
		require.NoError(t, a.TryPost(3))
		assert.ErrorIs(t, a.TryPost(4), agent.ErrFull)
		time.Sleep(time.Second) // 2 passes
		synctest.Wait()
		require.NoError(t, a.TryPost(4))
		short, cancel := context.WithTimeout(context.Background(), time.Second/2)
		defer cancel()
		assert.ErrorIs(t, a.Post(short, 5), context.DeadlineExceeded)
	})
}

func TestStopDropsWaitingItems(t *testing.T) {
	agenttest.InBubble(t, func(t *testing.T, rt *agent.Runtime) {
		got := newClocked[int]()
		a, err := rate.New(rt, rate.Config[int]{Rate: 1, Burst: 1}, got.sink)
		require.NoError(t, err)
		ctx := context.Background()
		for i := range 3 {
			require.NoError(t, a.Post(ctx, i))
		}
		synctest.Wait()
		require.NoError(t, a.Stop(ctx))
		assert.ErrorIs(t, a.Wait(ctx), agent.ErrStopped)
		assert.ErrorIs(t, rate.SetLimit(a, rate.Limit{Rate: 2, Burst: 2}), agent.ErrClosed)
		time.Sleep(time.Hour) // the pending timer was disarmed
		assert.Equal(t, []int{0}, got.values)
		st, err := a.Status(ctx)
		require.NoError(t, err, "the snapshot taken as the agent stopped")
		assert.Equal(t, agent.Load{Queued: 2, Done: 1, Demand: agent.Unbounded - 1}, st.Load)
	})
}

func TestLogStatusWritesTheStatusFields(t *testing.T) {
	var logs bytes.Buffer
	rt := agent.NewRuntime(agent.WithLogger(zerolog.New(&logs)))
	defer rt.Shutdown(context.Background())
	a, err := rate.New(rt, rate.Config[int]{Rate: 0.5, Burst: 2}, nil)
	require.NoError(t, err)
	ctx := context.Background()
	for i := range 3 {
		require.NoError(t, a.Post(ctx, i))
	}
	a.LogStatus()
	_, err = a.Status(ctx) // answered after the event was written
	require.NoError(t, err)
	ev := logline.Last(t, logs.Bytes())
	assert.Equal(t, "rate", ev.Agent)
	assert.Equal(t, 0.5, ev.Status["rate"])
	assert.Equal(t, 2.0, ev.Status["burst"])
	assert.Equal(t, 1.0, ev.Status["queued"])
	assert.Equal(t, 2.0, ev.Status["done"])
	assert.Equal(t, "unbounded", ev.Status["demand"])
	assert.Contains(t, ev.Status, "tokens")
}

func TestNewRejectsABadConfig(t *testing.T) {
	_, err := rate.New[int](nil, rate.Config[int]{Rate: 1, Burst: 1}, nil)
	assert.EqualError(t, err, "rate: runtime must not be nil")
	assert.ErrorIs(t, err, rate.ErrConfig)
	rt := agent.NewRuntime()
	_, err = rate.New(rt, rate.Config[int]{Rate: 1}, nil)
	assert.EqualError(t, err, "rate: burst must be at least 1, got 0")
	assert.ErrorIs(t, err, rate.ErrConfig)
	_, err = rate.New(rt, rate.Config[int]{Rate: 1, Burst: 1, Queue: -1}, nil)
	assert.EqualError(t, err, "rate: queue must not be negative, got -1")
	require.NoError(t, rt.Shutdown(context.Background()))
	_, err = rate.New(rt, rate.Config[int]{Rate: 1, Burst: 1}, nil)
	assert.ErrorIs(t, err, agent.ErrClosed)
}
