package cell_test

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/agent/agenttest"
	"github.com/evolvekit/evolve/internal/bridge"
	"github.com/evolvekit/evolve/internal/cell"
	"github.com/evolvekit/evolve/internal/testing/echo"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAStopFromTheSinkDoesNotStall(t *testing.T) {
	agenttest.InBubble(t, func(t *testing.T, rt *agent.Runtime) {
		var h interface{ Stop(context.Context) error }
		stopped := make(chan error, 1)
		var once sync.Once
		a, err := spawnEcho(rt, 4, nil, func(v int) {
			once.Do(func() {
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				start := time.Now()
				err := h.Stop(ctx)
				if time.Since(start) > 0 {
					err = context.DeadlineExceeded
				}
				stopped <- err
			})
		})
		require.NoError(t, err)
		h = a
		require.NoError(t, a.Post(context.Background(), 1))
		require.NoError(t, <-stopped, "a Stop from the agent's own sink returns at once")
		assert.ErrorIs(t, a.Wait(context.Background()), agent.ErrStopped)
	})
}

func TestConcurrentStopsEachHonourTheirContext(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rt := agent.NewRuntime()
		release := make(chan struct{})
		h, err := spawnEcho(rt, 4, func(context.Context, int) (int, error) { <-release; return 0, nil }, nil)
		require.NoError(t, err)
		require.NoError(t, h.Post(context.Background(), -1))
		synctest.Wait()
		start := time.Now()
		var wg sync.WaitGroup
		for _, d := range []time.Duration{time.Second, 2 * time.Second, 3 * time.Second} {
			wg.Go(func() {
				ctx, cancel := context.WithTimeout(context.Background(), d)
				defer cancel()
				assert.ErrorIs(t, h.Stop(ctx), context.DeadlineExceeded)
				assert.Equal(t, d, time.Since(start), "a Stop waits for its own context, not behind another")
			})
		}
		wg.Wait()
		close(release)
		require.NoError(t, h.Stop(context.Background()))
		require.NoError(t, rt.Shutdown(context.Background()))
	})
}

func TestAfterWaitTheActorIsGoneAndStatusStillAnswers(t *testing.T) {
	rt := agenttest.Runtime(t)
	registry := bridge.Runtime(rt).System.ProcessRegistry
	h, err := spawnEcho(rt, 4, func(_ context.Context, v int) (int, error) { return -v, nil }, nil)
	require.NoError(t, err)
	for _, v := range []int{-1, -2, 3} {
		require.NoError(t, h.Post(context.Background(), v))
	}
	h.Close()
	require.NoError(t, h.Wait(context.Background()))
	assert.Positive(t, cell.WorkersForTest(h))
	assert.Zero(t, cell.RunningForTest(h), "every worker has returned")
	st, err := h.Status(context.Background())
	require.NoError(t, err)
	assert.Equal(t, echo.Status{Seen: 3}, st)
	actors := 0
	for _, bucket := range registry.LocalPIDs.LocalPIDs {
		actors += bucket.Count()
	}
	assert.Equal(t, 2, actors, "only protoactor's own are left")
}

func TestShutdownLeavesEveryAgentDone(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		rt := agent.NewRuntime()
		var hs []interface{ Done() <-chan struct{} }
		for range 20 {
			h, err := spawnEcho(rt, 4, func(ctx context.Context, v int) (int, error) { <-ctx.Done(); return 0, ctx.Err() }, nil)
			require.NoError(t, err)
			require.NoError(t, h.Post(context.Background(), -1))
			hs = append(hs, h)
		}
		require.NoError(t, rt.Shutdown(context.Background()))
		for _, h := range hs {
			select {
			case <-h.Done():
			default:
				t.Fatal("an agent is not done after Shutdown returned")
			}
		}
	})
}
