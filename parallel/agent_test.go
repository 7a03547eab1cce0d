package parallel_test

import (
	"bytes"
	"context"
	"errors"
	"github.com/evolvekit/evolve/internal/testing/logline"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/agent/agenttest"
	"github.com/evolvekit/evolve/parallel"
	"github.com/rs/zerolog"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// gauge counts the work running now and remembers the most ever seen.
type gauge struct {
	now, peak atomic.Int64
}

func (g *gauge) enter() {
	n := g.now.Add(1)
	for p := g.peak.Load(); n > p && !g.peak.CompareAndSwap(p, n); p = g.peak.Load() {
	}
}

func (g *gauge) leave() { g.now.Add(-1) }

// collect returns a sink that appends to *got. The sink runs on the agent's
// goroutine; read *got after Wait.
func collect[Out any](got *[]parallel.Result[Out]) func(parallel.Result[Out]) {
	return func(r parallel.Result[Out]) { *got = append(*got, r) }
}

func postAll(t *testing.T, a agent.Handle[int, parallel.Status], items ...int) {
	t.Helper()
	for _, v := range items {
		require.NoError(t, a.Post(context.Background(), v))
	}
}

func seqs(rs []parallel.Result[int]) []uint64 {
	out := make([]uint64, len(rs))
	for i, r := range rs {
		out[i] = r.Seq
	}
	return out
}

func TestEveryItemComesOutInInputOrderWithinTheLimit(t *testing.T) {
	agenttest.InBubble(t, func(t *testing.T, rt *agent.Runtime) {
		const n, limit = 100, 4
		var g gauge
		work := func(_ context.Context, v int) (int, error) {
			g.enter()
			defer g.leave()
			time.Sleep(time.Duration(1+(v*7)%10) * time.Millisecond) // later items often finish first
			return 2 * v, nil
		}
		var got []parallel.Result[int]
		a, err := parallel.New(rt, parallel.Config{Limit: limit, Queue: 8}, work, collect(&got))
		require.NoError(t, err)
		items := make([]int, n)
		for i := range items {
			items[i] = i
		}
		postAll(t, a, items...)
		a.Close()
		require.NoError(t, a.Wait(context.Background()))
		require.Len(t, got, n)
		for i, r := range got {
			require.Equal(t, parallel.Result[int]{Seq: uint64(i), Value: 2 * i}, r)
		}
		assert.Equal(t, int64(limit), g.peak.Load(), "the limit was used and never exceeded")
		st, err := a.Status(context.Background())
		require.NoError(t, err)
		assert.Equal(t, parallel.Status{
			Load:  agent.Load{Done: n, Demand: agent.Unbounded - n},
			Limit: limit, Queue: 8, MaxBatch: parallel.DefaultMaxBatch, Batch: 1,
			Accepted: n, Emitted: n, Closed: true,
		}, st, "work of milliseconds goes one item at a time")
	})
}

func TestQuickWorkGoesInBatchesAndStaysWithinTheLimit(t *testing.T) {
	agenttest.InBubble(t, func(t *testing.T, rt *agent.Runtime) {
		const n, limit = 2000, 3
		var g gauge
		work := func(_ context.Context, v int) (int, error) {
			g.enter()
			defer g.leave()
			return 2 * v, nil
		}
		var got []parallel.Result[int]
		a, err := parallel.New(rt, parallel.Config{Limit: limit}, work, collect(&got))
		require.NoError(t, err)
		items := make([]int, n)
		for i := range items {
			items[i] = i
		}
		postAll(t, a, items...)
		a.Close()
		require.NoError(t, a.Wait(context.Background()))
		require.Len(t, got, n)
		for i, r := range got {
			require.Equal(t, parallel.Result[int]{Seq: uint64(i), Value: 2 * i}, r)
		}
		assert.LessOrEqual(t, g.peak.Load(), int64(limit), "a batch's items are worked on one after another")
		st, err := a.Status(context.Background())
		require.NoError(t, err)
		assert.Equal(t, parallel.DefaultMaxBatch, st.Batch, "in the bubble work takes no time: batches as large as MaxBatch")
	})
}

func TestUnorderedResultsComeOutAsTheyFinish(t *testing.T) {
	agenttest.InBubble(t, func(t *testing.T, rt *agent.Runtime) {
		work := func(_ context.Context, v int) (int, error) {
			time.Sleep(time.Duration(30-10*v) * time.Millisecond)
			return v, nil
		}
		var got []parallel.Result[int]
		a, err := parallel.New(rt, parallel.Config{Limit: 3, Unordered: true}, work, collect(&got))
		require.NoError(t, err)
		postAll(t, a, 0, 1, 2)
		a.Close()
		require.NoError(t, a.Wait(context.Background()))
		assert.Equal(t, []uint64{2, 1, 0}, seqs(got))
	})
}

func TestAPanicInWorkFailsOneResultAndTheAgentLivesOn(t *testing.T) {
	agenttest.InBubble(t, func(t *testing.T, rt *agent.Runtime) {
		work := func(_ context.Context, v int) (int, error) {
			if v == 2 {
				panic("boom")
			}
			return v, nil
		}
		var got []parallel.Result[int]
		a, err := parallel.New(rt, parallel.Config{Limit: 2}, work, collect(&got))
		require.NoError(t, err)
		postAll(t, a, 0, 1, 2, 3, 4)
		a.Close()
		err = a.Wait(context.Background())
		var pe *agent.PanicError
		require.ErrorAs(t, err, &pe)
		assert.Equal(t, "boom", pe.Value)
		assert.Contains(t, string(pe.Stack), "agent_test.go")
		require.Equal(t, []uint64{0, 1, 2, 3, 4}, seqs(got))
		assert.Same(t, pe, got[2].Err)
		for _, i := range []int{0, 1, 3, 4} {
			assert.Equal(t, parallel.Result[int]{Seq: uint64(i), Value: i}, got[i])
		}
		st, err := a.Status(context.Background())
		require.NoError(t, err)
		assert.Equal(t, 5, st.Done)
		assert.Equal(t, 1, st.Failed)
	})
}

func TestWaitReturnsTheFirstFailureAfterEverythingIsDone(t *testing.T) {
	agenttest.InBubble(t, func(t *testing.T, rt *agent.Runtime) {
		early, late := errors.New("fails at 10ms"), errors.New("fails at 20ms")
		work := func(_ context.Context, v int) (int, error) {
			switch v {
			case 0:
				time.Sleep(20 * time.Millisecond)
				return 0, late
			case 1:
				time.Sleep(10 * time.Millisecond)
				return 0, early
			}
			time.Sleep(time.Second)
			return v, nil
		}
		var got []parallel.Result[int]
		a, err := parallel.New(rt, parallel.Config{Limit: 3}, work, collect(&got))
		require.NoError(t, err)
		postAll(t, a, 0, 1, 2)
		a.Close()
		start := time.Now()
		assert.ErrorIs(t, a.Wait(context.Background()), early)
		assert.Equal(t, time.Second, time.Since(start), "Wait returned after the slowest item")
		assert.Len(t, got, 3)
		assert.ErrorIs(t, got[0].Err, late)
	})
}

func TestSetLimitWhileRunning(t *testing.T) {
	agenttest.InBubble(t, func(t *testing.T, rt *agent.Runtime) {
		release := make(chan struct{})
		work := func(_ context.Context, v int) (int, error) { <-release; return v, nil }
		a, err := parallel.New(rt, parallel.Config{Limit: 1}, work, nil)
		require.NoError(t, err)
		postAll(t, a, 0, 1, 2, 3)
		expect := func(inFlight, queued int, why string) {
			t.Helper()
			synctest.Wait()
			st, err := a.Status(context.Background())
			require.NoError(t, err)
			assert.Equal(t, [2]int{inFlight, queued}, [2]int{st.InFlight, st.Queued}, why)
		}
		expect(1, 3, "limit 1")
		require.NoError(t, parallel.SetLimit(a, 3))
		expect(3, 1, "raising the limit starts queued work at once")
		require.NoError(t, parallel.SetLimit(a, 1))
		expect(3, 1, "lowering the limit lets running work run")
		release <- struct{}{}
		expect(2, 1, "two still over the limit of 1: nothing starts")
		release <- struct{}{}
		expect(1, 1, "one at the limit of 1: nothing starts")
		release <- struct{}{}
		expect(1, 0, "below the limit: the last item starts")
		assert.ErrorIs(t, parallel.SetLimit(a, 0), parallel.ErrConfig)
		close(release)
		a.Close()
		require.NoError(t, a.Wait(context.Background()))
		require.NoError(t, a.Stop(context.Background()))
		assert.ErrorIs(t, parallel.SetLimit(a, 2), agent.ErrClosed)
	})
}

func TestTryPostReportsAFullQueue(t *testing.T) {
	agenttest.InBubble(t, func(t *testing.T, rt *agent.Runtime) {
		release := make(chan struct{})
		work := func(_ context.Context, v int) (int, error) { <-release; return v, nil }
		var got []parallel.Result[int]
		a, err := parallel.New(rt, parallel.Config{Limit: 1, Queue: 2}, work, collect(&got))
		require.NoError(t, err)
		postAll(t, a, 0)
		synctest.Wait() // item 0 started, so its slot came back
		postAll(t, a, 1, 2)
		synctest.Wait()
		assert.ErrorIs(t, a.TryPost(3), agent.ErrFull)
		st, err := a.Status(context.Background())
		require.NoError(t, err)
		assert.Equal(t, 1, st.InFlight)
		assert.Equal(t, 2, st.Queued)
		close(release)
		a.Close()
		require.NoError(t, a.Wait(context.Background()))
		assert.Equal(t, []uint64{0, 1, 2}, seqs(got))
	})
}

func TestPostAfterCloseIsRefused(t *testing.T) {
	rt := agenttest.Runtime(t)
	a, err := parallel.New(rt, parallel.Config{Limit: 2}, double, nil)
	require.NoError(t, err)
	postAll(t, a, 1, 2)
	a.Close()
	assert.ErrorIs(t, a.Post(context.Background(), 3), agent.ErrClosed)
	assert.ErrorIs(t, a.TryPost(3), agent.ErrClosed)
	require.NoError(t, a.Wait(context.Background()))
	st, err := a.Status(context.Background())
	require.NoError(t, err)
	assert.Equal(t, 2, st.Emitted, "a nil sink discards results, but they are counted")
}

func TestStopCancelsRunningWork(t *testing.T) {
	agenttest.InBubble(t, func(t *testing.T, rt *agent.Runtime) {
		var cancelled atomic.Int64
		work := func(ctx context.Context, v int) (int, error) {
			<-ctx.Done()
			cancelled.Add(1)
			return v, ctx.Err()
		}
		a, err := parallel.New(rt, parallel.Config{Limit: 2}, work, nil)
		require.NoError(t, err)
		postAll(t, a, 0, 1, 2)
		synctest.Wait()
		require.NoError(t, a.Stop(context.Background()))
		assert.Equal(t, int64(2), cancelled.Load(), "Stop returned after both running items saw their context end")
		assert.ErrorIs(t, a.Wait(context.Background()), agent.ErrStopped)
		st, err := a.Status(context.Background())
		require.NoError(t, err, "the snapshot taken as the agent stopped")
		assert.Equal(t, agent.Load{Queued: 1, InFlight: 2, Demand: agent.Unbounded}, st.Load)
		assert.Equal(t, 3, st.Accepted)
	})
}

func TestStatusAfterTheEndIsTheFinalSnapshot(t *testing.T) {
	agenttest.InBubble(t, func(t *testing.T, rt *agent.Runtime) {
		work := func(_ context.Context, v int) (int, error) {
			time.Sleep(time.Duration(v) * time.Millisecond)
			return v, nil
		}
		a, err := parallel.New(rt, parallel.Config{Limit: 2, Queue: 3}, work, nil)
		require.NoError(t, err)
		postAll(t, a, 1, 2, 3, 4, 5)
		a.Close()
		require.NoError(t, a.Wait(context.Background()))
		st, err := a.Status(context.Background())
		require.NoError(t, err)
		assert.Equal(t, agent.Load{Done: 5, Demand: agent.Unbounded - 5}, st.Load)
		assert.Equal(t, [3]int{5, 5, 0}, [3]int{st.Accepted, st.Emitted, st.Batches})
		assert.True(t, st.Closed)
		again, err := a.Status(context.Background())
		require.NoError(t, err)
		assert.Equal(t, st, again)

		ended, cancel := context.WithCancel(context.Background())
		cancel()
		_, err = a.Status(ended)
		assert.ErrorIs(t, err, context.Canceled, "an ended context is not asked")
	})
}

func TestNewRejectsABadConfig(t *testing.T) {
	rt := agenttest.Runtime(t)
	for _, c := range []struct {
		rt   *agent.Runtime
		cfg  parallel.Config
		work parallel.Work[int, int]
		want string
	}{
		{rt, parallel.Config{}, double, "parallel: limit must be at least 1, got 0"},
		{rt, parallel.Config{Limit: 2, Queue: -1}, double, "parallel: queue must not be negative, got -1"},
		{rt, parallel.Config{Limit: 2, MaxBatch: -1}, double, "parallel: max batch must not be negative, got -1"},
		{rt, parallel.Config{Limit: 2, Timeout: -time.Millisecond}, double, "parallel: timeout must not be negative, got -1ms"},
		{rt, parallel.Config{Limit: 2}, nil, "parallel: work must not be nil"},
		{nil, parallel.Config{Limit: 2}, double, "parallel: runtime must not be nil"},
	} {
		a, err := parallel.New(c.rt, c.cfg, c.work, nil)
		assert.Nil(t, a)
		assert.EqualError(t, err, c.want)
		assert.ErrorIs(t, err, parallel.ErrConfig)
	}
	err := parallel.SetLimit[int](nil, -2)
	assert.EqualError(t, err, "parallel: limit must be at least 1, got -2")
	assert.ErrorIs(t, err, parallel.ErrConfig)
}

func TestStageRejectsABadConfig(t *testing.T) {
	for _, c := range []struct {
		cfg  parallel.Config
		work parallel.Work[int, int]
		want string
	}{
		{parallel.Config{Limit: 0}, double, "parallel: limit must be at least 1, got 0"},
		{parallel.Config{Limit: 1, MaxBatch: -3}, double, "parallel: max batch must not be negative, got -3"},
		{parallel.Config{Limit: 1, Timeout: -1}, double, "parallel: timeout must not be negative, got -1ns"},
		{parallel.Config{Limit: 1}, nil, "parallel: work must not be nil"},
	} {
		_, err := parallel.Stage(c.cfg, c.work)
		assert.EqualError(t, err, c.want)
		assert.ErrorIs(t, err, parallel.ErrConfig)
	}
}

func TestNewOnAShutDownRuntimeFails(t *testing.T) {
	rt := agent.NewRuntime()
	require.NoError(t, rt.Shutdown(context.Background()))
	_, err := parallel.New(rt, parallel.Config{Limit: 1}, double, nil)
	assert.ErrorIs(t, err, agent.ErrClosed)
}

func TestLogStatusWritesTheStatusAsOneObject(t *testing.T) {
	var logs bytes.Buffer
	rt := agenttest.Runtime(t, agent.WithLogger(zerolog.New(&logs)))
	a, err := parallel.New(rt, parallel.Config{Name: "doubler", Limit: 3, Queue: 5}, double, nil)
	require.NoError(t, err)
	postAll(t, a, 1, 2)
	a.Close()
	require.NoError(t, a.Wait(context.Background()))
	a.LogStatus()
	_, err = a.Status(context.Background()) // answered after the log event was written
	require.NoError(t, err)
	ev := logline.Last(t, logs.Bytes())
	assert.Equal(t, "doubler", ev.Agent)
	batch := ev.Status["batch"]
	assert.IsType(t, 0.0, batch)
	assert.GreaterOrEqual(t, batch, 1.0, "the batch size follows the time items took, so it is only bounded")
	assert.LessOrEqual(t, batch, float64(parallel.DefaultMaxBatch))
	delete(ev.Status, "batch")
	assert.Equal(t, map[string]any{
		"queued": 0.0, "in_flight": 0.0, "done": 2.0, "failed": 0.0, "demand": "unbounded",
		"retried": 0.0, "retrying": 0.0, "moved": 0.0, "limit": 3.0, "queue": 5.0, "unordered": false, "max_batch": float64(parallel.DefaultMaxBatch),
		"batches": 0.0, "held": 0.0, "accepted": 2.0, "emitted": 2.0, "closed": true, "paced": false, "room": 0.0,
	}, ev.Status)
}

func double(_ context.Context, v int) (int, error) { return 2 * v, nil }
