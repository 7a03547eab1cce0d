package adaptive_test

import (
	"bytes"
	"context"
	"errors"
	"github.com/evolvekit/evolve/internal/testing/logline"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/evolvekit/evolve/adaptive"
	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/agent/agenttest"
	"github.com/evolvekit/evolve/compose"
	"github.com/evolvekit/evolve/parallel"
	"github.com/rs/zerolog"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func double(_ context.Context, v int) (int, error) { return 2 * v, nil }

func postAll(t *testing.T, a agent.Handle[int, adaptive.Status], items ...int) {
	t.Helper()
	for _, v := range items {
		require.NoError(t, a.Post(context.Background(), v))
	}
}

// TestTheLimitGrowsToTheKneeOfRealWork runs the agent on a real runtime, in
// virtual time: work takes 10ms up to 4 at once and longer beyond, so that
// throughput falls past 4, the best limit. Starting at 1, the limit doubles to 4 and
// stays there or one step away, and every item comes out in order.
func TestTheLimitGrowsToTheKneeOfRealWork(t *testing.T) {
	agenttest.InBubble(t, func(t *testing.T, rt *agent.Runtime) {
		var inFlight, peak atomic.Int64
		work := func(_ context.Context, v int) (int, error) {
			n := inFlight.Add(1)
			defer inFlight.Add(-1)
			for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
			}
			d := 10 * time.Millisecond // up to 4 at once; beyond, (n/4)² times as long
			if n > 4 {
				d = d * time.Duration(n*n) / 16
			}
			time.Sleep(d)
			return v, nil
		}
		var got []parallel.Result[int]
		a, err := adaptive.New(rt, adaptive.Config{Max: 16}, work, func(r parallel.Result[int]) { got = append(got, r) })
		require.NoError(t, err)
		const n = 2000
		go func() {
			for i := range n {
				if a.Post(context.Background(), i) != nil {
					return
				}
			}
			a.Close()
		}()
		require.NoError(t, a.Wait(context.Background()))
		require.Len(t, got, n)
		for i, r := range got {
			require.Equal(t, uint64(i), r.Seq)
		}
		st, err := a.Status(context.Background())
		require.NoError(t, err)
		assert.InDelta(t, 4, st.Limit, 1)
		assert.LessOrEqual(t, peak.Load(), int64(16))
		assert.Equal(t, "hill", st.Controller)
		assert.Positive(t, st.View.Throughput)
	})
}

func TestSetLimitWhileRunning(t *testing.T) {
	agenttest.InBubble(t, func(t *testing.T, rt *agent.Runtime) {
		release := make(chan struct{})
		work := func(_ context.Context, v int) (int, error) { <-release; return v, nil }
		a, err := adaptive.New(rt, adaptive.Config{Max: 3, Controller: adaptive.Fixed{}}, work, nil)
		require.NoError(t, err)
		postAll(t, a, 0, 1, 2, 3)
		expect := func(limit, inFlight int) {
			t.Helper()
			synctest.Wait()
			st, err := a.Status(context.Background())
			require.NoError(t, err)
			assert.Equal(t, [3]int{limit, inFlight, inFlight}, [3]int{st.Limit, st.InFlight, st.Batches})
		}
		expect(1, 1)
		require.NoError(t, adaptive.SetLimit(a, 5))
		expect(3, 3) // brought down to Max
		assert.ErrorIs(t, adaptive.SetLimit(a, 0), adaptive.ErrConfig)
		close(release)
		a.Close()
		require.NoError(t, a.Wait(context.Background()))
		assert.ErrorIs(t, adaptive.SetLimit(a, 2), agent.ErrClosed)
	})
}

func TestAFailureIsPassedOnAndWaitReturnsIt(t *testing.T) {
	agenttest.InBubble(t, func(t *testing.T, rt *agent.Runtime) {
		boom := errors.New("boom")
		work := func(_ context.Context, v int) (int, error) {
			if v == 1 {
				return 0, boom
			}
			return v, nil
		}
		var got []parallel.Result[int]
		a, err := adaptive.New(rt, adaptive.Config{}, work, func(r parallel.Result[int]) { got = append(got, r) })
		require.NoError(t, err)
		postAll(t, a, 0, 1, 2)
		a.Close()
		assert.ErrorIs(t, a.Wait(context.Background()), boom)
		require.Len(t, got, 3)
		assert.ErrorIs(t, got[1].Err, boom)
	})
}

func TestNewRejectsABadConfig(t *testing.T) {
	rt := agenttest.Runtime(t)
	for _, c := range []struct {
		rt   *agent.Runtime
		cfg  adaptive.Config
		work parallel.Work[int, int]
		want string
	}{
		{rt, adaptive.Config{Min: 3, Max: 2}, double, "adaptive: max must be at least min (3), got 2"},
		{rt, adaptive.Config{}, nil, "adaptive: work must not be nil"},
		{nil, adaptive.Config{}, double, "adaptive: runtime must not be nil"},
	} {
		a, err := adaptive.New(c.rt, c.cfg, c.work, nil)
		assert.Nil(t, a)
		assert.EqualError(t, err, c.want)
		assert.ErrorIs(t, err, adaptive.ErrConfig)
	}
	_, err := adaptive.Stage(adaptive.Config{Queue: -1}, double)
	assert.EqualError(t, err, "adaptive: queue must not be negative, got -1")
	err = adaptive.SetLimit[int](nil, -2)
	assert.EqualError(t, err, "adaptive: limit must be at least 1, got -2")
	assert.ErrorIs(t, err, adaptive.ErrConfig)
}

func TestLogStatusWritesTheStatusAsOneObject(t *testing.T) {
	var logs bytes.Buffer
	rt := agenttest.Runtime(t, agent.WithLogger(zerolog.New(&logs)))
	a, err := adaptive.New(rt, adaptive.Config{Name: "doubler", Min: 2, Max: 6, Queue: 5, Controller: adaptive.Fixed{}}, double, nil)
	require.NoError(t, err)
	postAll(t, a, 1, 2)
	a.Close()
	require.NoError(t, a.Wait(context.Background()))
	a.LogStatus()
	_, err = a.Status(context.Background()) // answered after the log event was written
	require.NoError(t, err)
	ev := logline.Last(t, logs.Bytes())
	assert.Equal(t, "doubler", ev.Agent)
	assert.Equal(t, map[string]any{
		"queued": 0.0, "in_flight": 0.0, "done": 2.0, "failed": 0.0, "demand": "unbounded", "retried": 0.0, "retrying": 0.0, "moved": 0.0,
		"limit": 2.0, "queue": 5.0, "unordered": false, "max_batch": 1.0, "batches": 0.0, "batch": 1.0, "held": 0.0,
		"accepted": 2.0, "emitted": 2.0, "closed": true, "paced": false, "room": 0.0,
		"min": 2.0, "max": 6.0, "controller": "fixed", "view": map[string]any{"phase": "fixed", "throughput": 0.0, "latency": 0.0},
	}, ev.Status)
}

func TestAStagePassesValuesOnAndDropsFailures(t *testing.T) {
	agenttest.InBubble(t, func(t *testing.T, rt *agent.Runtime) {
		work := func(_ context.Context, v int) (int, error) {
			if v < 0 {
				return 0, errors.New("negative")
			}
			return 10 * v, nil
		}
		s, err := adaptive.Stage(adaptive.Config{Max: 4}, work)
		require.NoError(t, err)
		var got []int
		c, err := compose.Start(rt, s, func(v int) { got = append(got, v) })
		require.NoError(t, err)
		for _, v := range []int{1, -1, 2, 3} {
			require.NoError(t, c.Post(context.Background(), v))
		}
		c.Close()
		assert.ErrorContains(t, c.Wait(context.Background()), "negative")
		assert.Equal(t, []int{10, 20, 30}, got)
		st, err := c.Status(context.Background())
		require.NoError(t, err)
		require.Len(t, st.Agents, 1)
		assert.Equal(t, "adaptive", st.Agents[0].Name)
		assert.Equal(t, 1, st.Agents[0].Failed)
		assert.Equal(t, 4, st.Agents[0].Detail.(adaptive.Status).Max)
	})
}

func TestAnItemPastItsTimeoutFails(t *testing.T) {
	agenttest.InBubble(t, func(t *testing.T, rt *agent.Runtime) {
		work := func(ctx context.Context, v int) (int, error) {
			select {
			case <-time.After(time.Duration(v) * time.Millisecond):
				return v, nil
			case <-ctx.Done():
				return 0, ctx.Err()
			}
		}
		var got []parallel.Result[int]
		a, err := adaptive.New(rt, adaptive.Config{Timeout: 20 * time.Millisecond}, work, func(r parallel.Result[int]) { got = append(got, r) })
		require.NoError(t, err)
		postAll(t, a, 10, 30, 5)
		a.Close()
		assert.ErrorIs(t, a.Wait(context.Background()), context.DeadlineExceeded)
		require.Len(t, got, 3)
		assert.NoError(t, got[0].Err)
		assert.ErrorIs(t, got[1].Err, context.DeadlineExceeded)
		assert.Equal(t, 5, got[2].Value)
	})
}

func TestCancelOnErrorCancelsTheWorkInFlight(t *testing.T) {
	agenttest.InBubble(t, func(t *testing.T, rt *agent.Runtime) {
		boom := errors.New("boom")
		work := func(ctx context.Context, v int) (int, error) {
			if v == 0 {
				time.Sleep(time.Millisecond)
				return 0, boom
			}
			<-ctx.Done() // the others run until the failure cancels them
			return 0, context.Cause(ctx)
		}
		var got []parallel.Result[int]
		a, err := adaptive.New(rt, adaptive.Config{Initial: 2, CancelOnError: true}, work, func(r parallel.Result[int]) { got = append(got, r) })
		require.NoError(t, err)
		postAll(t, a, 0, 1, 2, 3)
		a.Close()
		assert.ErrorIs(t, a.Wait(context.Background()), boom)
		require.Len(t, got, 4)
		for i, r := range got {
			assert.ErrorIs(t, r.Err, boom, "item %d", i)
		}
	})
}
