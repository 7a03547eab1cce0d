package buffer_test

import (
	"bytes"
	"context"
	"errors"
	"github.com/evolvekit/evolve/internal/testing/logline"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/agent/agenttest"
	"github.com/evolvekit/evolve/buffer"
	"github.com/evolvekit/evolve/internal/fields"
	"github.com/rs/zerolog"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// sink records the emitted batches and the instant each arrived. It is read
// from the test while the agent runs, so it locks.
type sink struct {
	mu      sync.Mutex
	batches [][]int
	at      []time.Time
}

func (s *sink) put(b []int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.batches = append(s.batches, b)
	s.at = append(s.at, time.Now())
}

func (s *sink) got() [][]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.batches)
}

func (s *sink) arrivals() []time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.at)
}

func lens(bs [][]int) []int {
	var n []int
	for _, b := range bs {
		n = append(n, len(b))
	}
	return n
}

func postAll(t *testing.T, a agent.Handle[int, buffer.Status], from, to int) {
	t.Helper()
	for i := from; i <= to; i++ {
		require.NoError(t, a.Post(context.Background(), i))
	}
}

func TestBatchesBySizeAndTheRestOnClose(t *testing.T) {
	agenttest.InBubble(t, func(t *testing.T, rt *agent.Runtime) {
		var out sink
		a, err := buffer.New(rt, buffer.Config[int]{Size: 10}, nil, out.put)
		require.NoError(t, err)
		postAll(t, a, 1, 25)
		synctest.Wait()
		assert.Equal(t, []int{10, 10}, lens(out.got()), "the last 5 wait for Close")
		a.Close()
		require.NoError(t, a.Wait(context.Background()))
		assert.Equal(t, []int{10, 10, 5}, lens(out.got()))
		assert.Equal(t, 25, len(slices.Concat(out.got()...)))
		assert.True(t, slices.IsSorted(slices.Concat(out.got()...)))
	})
}

func TestMaxWaitFlushesAPartialBatchAfterExactlyMaxWait(t *testing.T) {
	agenttest.InBubble(t, func(t *testing.T, rt *agent.Runtime) {
		var out sink
		a, err := buffer.New(rt, buffer.Config[int]{Size: 10, MaxWait: time.Second}, nil, out.put)
		require.NoError(t, err)
		t0 := time.Now()
		postAll(t, a, 1, 3)
		time.Sleep(time.Second - time.Nanosecond)
		synctest.Wait()
		assert.Empty(t, out.got())
		st, err := a.Status(context.Background())
		require.NoError(t, err)
		assert.Equal(t, 3, st.Pending)
		assert.Equal(t, t0, st.Oldest)
		time.Sleep(time.Nanosecond)
		synctest.Wait()
		assert.Equal(t, [][]int{{1, 2, 3}}, out.got())
		assert.Equal(t, []time.Time{t0.Add(time.Second)}, out.arrivals())
		a.Close()
		require.NoError(t, a.Wait(context.Background()))
	})
}

func TestFlushesNeverOverlap(t *testing.T) {
	agenttest.InBubble(t, func(t *testing.T, rt *agent.Runtime) {
		var running, most atomic.Int32
		flush := func(context.Context, []int) error {
			n := running.Add(1)
			if n > most.Load() {
				most.Store(n)
			}
			time.Sleep(10 * time.Millisecond)
			running.Add(-1)
			return nil
		}
		var out sink
		a, err := buffer.New(rt, buffer.Config[int]{Size: 7, Queue: 14}, flush, out.put)
		require.NoError(t, err)
		postAll(t, a, 0, 99)
		a.Close()
		require.NoError(t, a.Wait(context.Background()))
		assert.Equal(t, int32(1), most.Load())
		all := slices.Concat(out.got()...)
		assert.Len(t, all, 100)
		assert.True(t, slices.IsSorted(all), "batches come out in input order")
	})
}

var errBoom = errors.New("boom")

func TestFailingFlushIsReportedByWaitAndLaterBatchesFlush(t *testing.T) {
	agenttest.InBubble(t, func(t *testing.T, rt *agent.Runtime) {
		flush := func(_ context.Context, b []int) error {
			if b[0] == 3 {
				return errBoom
			}
			return nil
		}
		var out sink
		a, err := buffer.New(rt, buffer.Config[int]{Size: 2}, flush, out.put)
		require.NoError(t, err)
		postAll(t, a, 1, 7)
		a.Close()
		assert.ErrorIs(t, a.Wait(context.Background()), errBoom)
		assert.Equal(t, [][]int{{1, 2}, {5, 6}, {7}}, out.got())
		st, err := a.Status(context.Background())
		require.NoError(t, err, "the final snapshot")
		assert.Equal(t, 1, st.FailedBatches)
		assert.Equal(t, 2, st.Failed, "the items of the failed batch")
		assert.Equal(t, 7, st.Done)
		assert.Equal(t, 3, st.Flushed)
		assert.Equal(t, errBoom, st.Err)
		assert.True(t, st.Closed)
	})
}

func TestPanickingFlushIsReportedByWaitAndLaterBatchesFlush(t *testing.T) {
	agenttest.InBubble(t, func(t *testing.T, rt *agent.Runtime) {
		flush := func(_ context.Context, b []int) error {
			if b[0] == 1 {
				panic("flush bug")
			}
			if b[0] == 3 {
				return errBoom // a later failure: Wait keeps the first
			}
			return nil
		}
		var out sink
		a, err := buffer.New(rt, buffer.Config[int]{Size: 2}, flush, out.put)
		require.NoError(t, err)
		postAll(t, a, 1, 5)
		a.Close()
		err = a.Wait(context.Background())
		var pe *agent.PanicError
		require.ErrorAs(t, err, &pe)
		assert.Equal(t, "flush bug", pe.Value)
		assert.NotErrorIs(t, err, errBoom)
		assert.Equal(t, [][]int{{5}}, out.got())
	})
}

func TestPostAfterCloseIsRefused(t *testing.T) {
	agenttest.InBubble(t, func(t *testing.T, rt *agent.Runtime) {
		a, err := buffer.New(rt, buffer.Config[int]{Size: 2}, nil, nil)
		require.NoError(t, err)
		postAll(t, a, 1, 1)
		a.Close()
		assert.ErrorIs(t, a.Post(context.Background(), 2), agent.ErrClosed)
		assert.ErrorIs(t, a.TryPost(2), agent.ErrClosed)
		require.NoError(t, a.Wait(context.Background()))
	})
}

func TestTryPostReportsAFullQueue(t *testing.T) {
	agenttest.InBubble(t, func(t *testing.T, rt *agent.Runtime) {
		release := make(chan struct{})
		flush := func(context.Context, []int) error { <-release; return nil }
		var out sink
		a, err := buffer.New(rt, buffer.Config[int]{Size: 2, Queue: 2}, flush, out.put)
		require.NoError(t, err)
		postAll(t, a, 1, 2)
		synctest.Wait() // the first batch's flush has started: its slots are back
		require.NoError(t, a.TryPost(3))
		require.NoError(t, a.TryPost(4))
		assert.ErrorIs(t, a.TryPost(5), agent.ErrFull, "the second batch holds its slots until its flush starts")
		close(release)
		synctest.Wait()
		require.NoError(t, a.TryPost(5))
		a.Close()
		require.NoError(t, a.Wait(context.Background()))
		assert.Equal(t, [][]int{{1, 2}, {3, 4}, {5}}, out.got())
	})
}

func TestStopCancelsARunningFlush(t *testing.T) {
	agenttest.InBubble(t, func(t *testing.T, rt *agent.Runtime) {
		flush := func(ctx context.Context, _ []int) error { <-ctx.Done(); return ctx.Err() }
		a, err := buffer.New(rt, buffer.Config[int]{Size: 1}, flush, nil)
		require.NoError(t, err)
		postAll(t, a, 1, 1)
		synctest.Wait()
		require.NoError(t, a.Stop(context.Background()))
		assert.ErrorIs(t, a.Wait(context.Background()), agent.ErrStopped)
	})
}

func TestLogStatusWritesTheStatusFields(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var logs bytes.Buffer
		rt := agent.NewRuntime(agent.WithLogger(zerolog.New(&logs)))
		defer func() { require.NoError(t, rt.Shutdown(context.Background())) }()
		a, err := buffer.New(rt, buffer.Config[int]{Size: 3, MaxWait: time.Minute, Name: "orders"}, nil, nil)
		require.NoError(t, err)
		postAll(t, a, 1, 4)
		synctest.Wait()
		a.LogStatus()
		_, err = a.Status(context.Background()) // answered after the log line was written
		require.NoError(t, err)
		ev := logline.Last(t, logs.Bytes())
		assert.Equal(t, "orders", ev.Agent)
		assert.Equal(t, map[string]any{
			"size": 3.0, "max_weight": 0.0, "max_wait": 60000.0, "queue": 64.0,
			"pending": 1.0, "weight": 0.0, "waiting": 0.0,
			"queued": 1.0, "in_flight": 0.0, "done": 3.0, "failed": 0.0,
			"flushed": 1.0, "failed_batches": 0.0,
			"demand": "unbounded", "closed": false,
			"oldest": time.Now().Format(zerolog.TimeFieldFormat),
		}, ev.Status)
	})
}

func TestStatusLogsTheFirstError(t *testing.T) {
	var logs bytes.Buffer
	l := zerolog.New(&logs)
	l.Info().Object("status", fields.Object(buffer.Status{Err: errBoom})).Send()
	assert.Contains(t, logs.String(), `"err":"boom"`)
	assert.NotContains(t, logs.String(), `"oldest"`)
}

func TestANilFlushPassesEachBatchOnAsItIsCut(t *testing.T) {
	agenttest.InBubble(t, func(t *testing.T, rt *agent.Runtime) {
		var out sink
		a, err := buffer.New(rt, buffer.Config[int]{Size: 2}, nil, out.put)
		require.NoError(t, err)
		postAll(t, a, 1, 5)
		a.Close()
		require.NoError(t, a.Wait(context.Background()))
		assert.Equal(t, [][]int{{1, 2}, {3, 4}, {5}}, out.got())
		st, err := a.Status(context.Background())
		require.NoError(t, err)
		assert.Equal(t, 3, st.Flushed)
	})
}

func TestNewRejectsBadArguments(t *testing.T) {
	_, err := buffer.New(nil, buffer.Config[int]{Size: 1}, nil, nil)
	assert.EqualError(t, err, "buffer: runtime must not be nil")
	assert.ErrorIs(t, err, buffer.ErrConfig)
	rt := agent.NewRuntime()
	defer func() { require.NoError(t, rt.Shutdown(context.Background())) }()
	_, err = buffer.New(rt, buffer.Config[int]{Size: 0}, nil, nil)
	assert.EqualError(t, err, "buffer: size must be at least 1, got 0, unless max weight is set")
	assert.ErrorIs(t, err, buffer.ErrConfig)
	require.NoError(t, rt.Shutdown(context.Background()))
	_, err = buffer.New(rt, buffer.Config[int]{Size: 1}, nil, nil)
	assert.ErrorIs(t, err, agent.ErrClosed)
}
