package cell_test

import (
	"bytes"
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/evolvekit/evolve/internal/cell"
	"github.com/evolvekit/evolve/internal/spec"
	"github.com/evolvekit/evolve/internal/testing/echo"
	"github.com/evolvekit/evolve/internal/testing/logline"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/agent/agenttest"
	"github.com/rs/zerolog"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestPostCloseWaitDeliversEverythingInOrder(t *testing.T) {
	rt := agenttest.Runtime(t)
	var got []int
	h, err := spawnEcho(rt, 4, nil, func(v int) { got = append(got, v) })
	require.NoError(t, err)
	ctx := context.Background()
	for i := 1; i <= 1000; i++ {
		require.NoError(t, h.Post(ctx, i))
	}
	h.Close()
	require.NoError(t, h.Wait(ctx))
	require.Len(t, got, 1000)
	for i, v := range got {
		require.Equal(t, i+1, v)
	}
	st, err := h.Status(ctx)
	require.NoError(t, err)
	assert.Equal(t, 1000, st.Seen)
}

func TestPostAfterCloseOrStopIsRefused(t *testing.T) {
	rt := agenttest.Runtime(t)
	ctx := context.Background()
	h, err := spawnEcho(rt, 4, nil, nil)
	require.NoError(t, err)
	h.Close()
	h.Close() // harmless
	assert.ErrorIs(t, h.Post(ctx, 1), agent.ErrClosed)
	assert.ErrorIs(t, h.TryPost(1), agent.ErrClosed)

	h2, err := spawnEcho(rt, 4, nil, nil)
	require.NoError(t, err)
	require.NoError(t, h2.Post(ctx, 7))
	require.NoError(t, h2.Stop(ctx))
	assert.ErrorIs(t, h2.Post(ctx, 1), agent.ErrClosed)
	assert.ErrorIs(t, h2.Wait(ctx), agent.ErrStopped)
	st, err := h2.Status(ctx)
	require.NoError(t, err, "a stopped agent answers with the status it stopped with")
	assert.LessOrEqual(t, st.Seen, 1)
	assert.ErrorIs(t, cell.Send(h2, agent.Set[int]{Value: 3}), agent.ErrClosed)
	require.NoError(t, h2.Stop(ctx)) // idempotent
}

func TestStartedWorkGivesItsSlotBack(t *testing.T) {
	agenttest.InBubble(t, func(t *testing.T, rt *agent.Runtime) {
		release := make(chan struct{})
		work := func(ctx context.Context, v int) (int, error) { <-release; return v, nil }
		// The echo agent takes a negative item in by starting its work,
		// so the queue of 2 frees a slot per start, even while work runs.
		h, err := spawnEcho(rt, 2, work, nil)
		require.NoError(t, err)
		ctx := context.Background()
		require.NoError(t, h.Post(ctx, -1))
		require.NoError(t, h.Post(ctx, -2))
		synctest.Wait()
		// Both were started, so both slots came back.
		require.NoError(t, h.TryPost(-3))
		require.NoError(t, h.TryPost(-4))
		synctest.Wait()
		st, err := h.Status(ctx)
		require.NoError(t, err)
		assert.Equal(t, 4, st.Running)
		close(release)
		h.Close()
		require.NoError(t, h.Wait(ctx))
	})
}

// blocker never takes input in: its queue fills and stays full.
func blockerEvolve(s int, m agent.Msg) (int, []agent.Effect) {
	switch m := m.(type) {
	case agent.Input[int]:
		return s + len(m.Items), nil
	case agent.Query:
		return s, []agent.Effect{agent.Reply[int]{To: m.ID, Value: s}}
	}
	return s, nil
}

// spawnOf starts evolve as an agent of ints with an int status, its work
// (if any) run, and nothing emitted.
func spawnOf(rt *agent.Runtime, name string, evolve agent.Evolve[int], queue int, run func(context.Context, int) (int, error)) (*cell.Agent[int, int], error) {
	sp := spec.Spec[int, int, int, int]{Name: name, Evolve: evolve, Queue: queue}
	if run != nil {
		sp.Work = func(ctx context.Context, _ uint64, v int) (int, error) { return run(ctx, v) }
	}
	return cell.SpawnForTest[int, int](rt, sp, nil)
}

func TestPostBlocksWhileFullAndHonoursContext(t *testing.T) {
	agenttest.InBubble(t, func(t *testing.T, rt *agent.Runtime) {
		h, err := spawnOf(rt, "blocker", blockerEvolve, 3, nil)
		require.NoError(t, err)
		ctx := context.Background()
		for i := range 3 {
			require.NoError(t, h.Post(ctx, i))
		}
		assert.ErrorIs(t, h.TryPost(9), agent.ErrFull)
		short, cancel := context.WithTimeout(ctx, time.Second)
		defer cancel()
		start := time.Now()
		assert.ErrorIs(t, h.Post(short, 9), context.DeadlineExceeded)
		assert.Equal(t, time.Second, time.Since(start))
		n, err := h.Status(ctx)
		require.NoError(t, err)
		assert.Equal(t, 3, n, "nothing beyond the bound was delivered")

		// A Post blocked on a full queue returns ErrClosed when input closes.
		errc := make(chan error, 1)
		go func() { errc <- h.Post(ctx, 9) }()
		synctest.Wait()
		h.Close()
		assert.ErrorIs(t, <-errc, agent.ErrClosed)
	})
}

func TestTimerTicksAfterItsDelay(t *testing.T) {
	agenttest.InBubble(t, func(t *testing.T, rt *agent.Runtime) {
		h, err := spawnEcho(rt, 4, nil, nil)
		require.NoError(t, err)
		ctx := context.Background()
		require.NoError(t, h.Post(ctx, 0)) // arms a one-second timer
		time.Sleep(999 * time.Millisecond)
		st, err := h.Status(ctx)
		require.NoError(t, err)
		assert.Equal(t, 0, st.Ticks)
		time.Sleep(time.Millisecond)
		synctest.Wait()
		st, err = h.Status(ctx)
		require.NoError(t, err)
		assert.Equal(t, 1, st.Ticks)
	})
}

func TestRearmingReplacesAndDisarmCancels(t *testing.T) {
	agenttest.InBubble(t, func(t *testing.T, rt *agent.Runtime) {
		h, err := spawnEcho(rt, 4, nil, nil)
		require.NoError(t, err)
		ctx := context.Background()
		ticks := func() int {
			synctest.Wait()
			st, err := h.Status(ctx)
			require.NoError(t, err)
			return st.Ticks
		}
		require.NoError(t, h.Post(ctx, 0))
		time.Sleep(600 * time.Millisecond)
		require.NoError(t, h.Post(ctx, 0)) // replaces: due at 1.6s, not 1s
		time.Sleep(500 * time.Millisecond)
		assert.Equal(t, 0, ticks(), "the replaced timer must not tick")
		time.Sleep(500 * time.Millisecond)
		assert.Equal(t, 1, ticks())

		require.NoError(t, h.Post(ctx, 0))
		require.NoError(t, h.Post(ctx, echo.DisarmItem))
		time.Sleep(time.Hour)
		assert.Equal(t, 1, ticks(), "a disarmed timer must not tick")
	})
}

func TestStopCancelsRunningWork(t *testing.T) {
	agenttest.InBubble(t, func(t *testing.T, rt *agent.Runtime) {
		var cancelled atomic.Bool
		work := func(ctx context.Context, v int) (int, error) {
			<-ctx.Done()
			cancelled.Store(true)
			return v, ctx.Err()
		}
		h, err := spawnEcho(rt, 4, work, nil)
		require.NoError(t, err)
		ctx := context.Background()
		require.NoError(t, h.Post(ctx, 0))
		require.NoError(t, h.Post(ctx, -1))
		synctest.Wait()
		require.NoError(t, h.Stop(ctx))
		assert.True(t, cancelled.Load(), "Stop returned before the work saw its context end")
		assert.ErrorIs(t, h.Wait(ctx), agent.ErrStopped)
	})
}

func TestStopHonoursContextWhenWorkIgnoresIt(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rt := agent.NewRuntime()
		release := make(chan struct{})
		work := func(context.Context, int) (int, error) { <-release; return 0, nil }
		h, err := spawnEcho(rt, 4, work, nil)
		require.NoError(t, err)
		require.NoError(t, h.Post(context.Background(), -1))
		synctest.Wait()
		short, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		assert.ErrorIs(t, h.Stop(short), context.DeadlineExceeded)
		close(release)
		require.NoError(t, h.Stop(context.Background()))
		require.NoError(t, rt.Shutdown(context.Background()))
	})
}

func TestWorkPanicBecomesErrorWithStack(t *testing.T) {
	rt := agenttest.Runtime(t)
	var got []int
	h, err := spawnEcho(rt, 4, func(_ context.Context, v int) (int, error) {
		if v == -1 {
			panic("boom")
		}
		return -v, nil
	}, func(v int) { got = append(got, v) })
	require.NoError(t, err)
	ctx := context.Background()
	require.NoError(t, h.Post(ctx, -1))
	require.NoError(t, h.Post(ctx, -2))
	h.Close()
	err = h.Wait(ctx)
	var pe *agent.PanicError
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, "boom", pe.Value)
	assert.Contains(t, string(pe.Stack), "runtime_test.go")
	assert.ElementsMatch(t, []int{0, 2}, got, "the agent lived on after the panic")
}

func TestPanicErrorUnwrapsAnErrorValue(t *testing.T) {
	sentinel := errors.New("sentinel")
	err := error(&agent.PanicError{Value: sentinel})
	assert.ErrorIs(t, err, sentinel)
	assert.Equal(t, "panic: sentinel", err.Error())
}

func TestEvolvePanicBreaksTheAgentAndReportsIt(t *testing.T) {
	var logs bytes.Buffer
	rt := agenttest.Runtime(t, agent.WithLogger(zerolog.New(&logs)))
	boom := func(s int, m agent.Msg) (int, []agent.Effect) {
		if _, ok := m.(agent.Input[int]); ok {
			panic("evolve bug")
		}
		return s, nil
	}
	h, err := spawnOf(rt, "boom", boom, 1, nil)
	require.NoError(t, err)
	ctx := context.Background()
	require.NoError(t, h.Post(ctx, 1))
	var pe *agent.PanicError
	require.ErrorAs(t, h.Wait(ctx), &pe)
	assert.Equal(t, "evolve bug", pe.Value)
	assert.ErrorIs(t, h.Post(ctx, 2), agent.ErrClosed)
	_, err = h.Status(ctx)
	assert.ErrorIs(t, err, agent.ErrClosed, "boom's evolve gives no status")
	assert.Contains(t, logs.String(), `"message":"agent failed"`)
	assert.Contains(t, logs.String(), `"agent":"boom"`)
}

func TestSinkPanicIsReportedByWait(t *testing.T) {
	rt := agenttest.Runtime(t)
	h, err := spawnEcho(rt, 4, nil, func(v int) {
		if v == 2 {
			panic("sink")
		}
	})
	require.NoError(t, err)
	ctx := context.Background()
	for i := 1; i <= 3; i++ {
		require.NoError(t, h.Post(ctx, i))
	}
	h.Close()
	var pe *agent.PanicError
	require.ErrorAs(t, h.Wait(ctx), &pe)
	st, err := h.Status(ctx)
	require.NoError(t, err)
	assert.Equal(t, 3, st.Seen)
}

func TestWrongEffectTypeBreaksTheAgent(t *testing.T) {
	rt := agenttest.Runtime(t)
	wrong := func(s int, m agent.Msg) (int, []agent.Effect) {
		if _, ok := m.(agent.Input[int]); ok {
			return s, []agent.Effect{agent.Emit[string]{Values: []string{"x"}}}
		}
		return s, nil
	}
	h, err := spawnOf(rt, "wrong", wrong, 1, nil)
	require.NoError(t, err)
	require.NoError(t, h.Post(context.Background(), 1))
	assert.ErrorContains(t, h.Wait(context.Background()), "agent.Emit[string] does not match")
}

func TestStartWithoutWorkBreaksTheAgent(t *testing.T) {
	rt := agenttest.Runtime(t)
	h, err := spawnEcho(rt, 1, nil, nil)
	require.NoError(t, err)
	require.NoError(t, h.Post(context.Background(), -1))
	assert.ErrorContains(t, h.Wait(context.Background()), "has none")
}

func TestLogStatusWritesOneStructuredEvent(t *testing.T) {
	var logs bytes.Buffer
	rt := agenttest.Runtime(t, agent.WithLogger(zerolog.New(&logs)))
	h, err := spawnEcho(rt, 4, nil, nil)
	require.NoError(t, err)
	ctx := context.Background()
	require.NoError(t, h.Post(ctx, 5))
	h.LogStatus()
	_, err = h.Status(ctx) // answered after the log event was written
	require.NoError(t, err)
	ev := logline.Last(t, logs.Bytes())
	assert.Equal(t, "info", ev.Level)
	assert.Equal(t, "echo", ev.Agent)
	assert.NotEmpty(t, ev.PID)
	assert.Equal(t, "status", ev.Message)
	assert.Equal(t, map[string]any{"seen": 1.0, "running": 0.0, "ticks": 0.0}, ev.Status)
}

func TestTheRuntimeSaysNothingOfItsOwnAccord(t *testing.T) {
	var logs syncBuffer
	rt := agenttest.Runtime(t, agent.WithLogger(zerolog.New(&logs).Level(zerolog.DebugLevel)))
	h, err := spawnEcho(rt, 4, nil, nil)
	require.NoError(t, err)
	require.NoError(t, h.Post(context.Background(), 1))
	h.Close()
	require.NoError(t, h.Wait(context.Background()))
	assert.Empty(t, logs.String(), "protoactor's info (actor system started) and the agents' lives are not logged")
}

func TestStatusHonoursContext(t *testing.T) {
	rt := agenttest.Runtime(t)
	h, err := spawnEcho(rt, 1, nil, nil)
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = h.Status(ctx)
	assert.ErrorIs(t, err, context.Canceled)
}

func TestShutdownStopsEveryAgentAndRefusesNewOnes(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rt := agent.NewRuntime()
		work := func(ctx context.Context, v int) (int, error) { <-ctx.Done(); return 0, ctx.Err() }
		a, err := spawnEcho(rt, 2, work, nil)
		require.NoError(t, err)
		b, err := spawnEcho(rt, 2, work, nil)
		require.NoError(t, err)
		require.NoError(t, a.Post(context.Background(), -1))
		require.NoError(t, b.Post(context.Background(), 0))
		require.NoError(t, rt.Shutdown(context.Background()))
		assert.ErrorIs(t, a.Wait(context.Background()), agent.ErrStopped)
		assert.ErrorIs(t, b.Wait(context.Background()), agent.ErrStopped)
		_, err = spawnEcho(rt, 2, nil, nil)
		assert.ErrorIs(t, err, agent.ErrClosed)
		require.NoError(t, rt.Shutdown(context.Background())) // idempotent
	})
}

func TestSendDeliversASetMessage(t *testing.T) {
	rt := agenttest.Runtime(t)
	settle := func(s int, m agent.Msg) (int, []agent.Effect) {
		switch m := m.(type) {
		case agent.Set[int]:
			return m.Value, nil
		case agent.Pull:
			return s, nil
		case agent.Query:
			return s, []agent.Effect{agent.Reply[int]{To: m.ID, Value: s}}
		}
		return s, []agent.Effect{agent.Unhandled{}}
	}
	h, err := spawnOf(rt, "settle", settle, 1, nil)
	require.NoError(t, err)
	require.NoError(t, cell.Send(h, agent.Set[int]{Value: 42}))
	v, err := h.Status(context.Background())
	require.NoError(t, err)
	assert.Equal(t, 42, v)
}

// eager starts work and gives back a slot it never took as soon as it
// starts: before Spawn has returned, the runtime logs and delivers for it.
func eager(s int, m agent.Msg) (int, []agent.Effect) {
	switch m := m.(type) {
	case agent.Pull:
		return s, []agent.Effect{agent.Start[int]{ID: 1, Work: 41}, agent.Demand{N: 1}}
	case agent.Done[int]:
		return m.Result, []agent.Effect{agent.Finish{Err: m.Err}}
	case agent.Query:
		return s, []agent.Effect{agent.Reply[int]{To: m.ID, Value: s}}
	}
	return s, nil
}

func TestAnAgentMayActBeforeSpawnReturns(t *testing.T) {
	var logs syncBuffer
	rt := agenttest.Runtime(t, agent.WithLogger(zerolog.New(&logs)))
	inc := func(_ context.Context, v int) (int, error) { return v + 1, nil }
	h, err := spawnOf(rt, "eager", eager, 1, inc)
	require.NoError(t, err)
	require.NoError(t, h.Wait(context.Background()))
	v, err := h.Status(context.Background())
	require.NoError(t, err)
	assert.Equal(t, 42, v)
	assert.Contains(t, logs.String(), "more input slots than it took")
	assert.Contains(t, logs.String(), `"agent":"eager"`)
}

// syncBuffer is a bytes.Buffer safe for the runtime's goroutines to write to
// while the test reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestAMessageAfterShutdownLeavesNoGoroutine(t *testing.T) {
	rt := agent.NewRuntime()
	h, err := spawnEcho(rt, 4, nil, nil)
	require.NoError(t, err)
	require.NoError(t, h.Post(context.Background(), 1))
	require.NoError(t, rt.Shutdown(context.Background()))
	assert.ErrorIs(t, h.Post(context.Background(), 2), agent.ErrClosed)
	assert.ErrorIs(t, cell.Send(h, agent.Set[int]{Value: 3}), agent.ErrClosed)
	h.LogStatus()
	require.NoError(t, rt.Shutdown(context.Background()))
}
