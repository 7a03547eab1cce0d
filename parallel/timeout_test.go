package parallel_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/agent/agenttest"
	"github.com/evolvekit/evolve/parallel"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWorkPastItsTimeoutFailsWithDeadlineExceeded(t *testing.T) {
	agenttest.InBubble(t, func(t *testing.T, rt *agent.Runtime) {
		work := func(ctx context.Context, v int) (int, error) {
			switch v {
			case 0: // in time
				time.Sleep(50 * time.Millisecond)
				return 10, nil
			case 1: // too slow, and heeds its context
				select {
				case <-time.After(time.Second):
					return 11, nil
				case <-ctx.Done():
					return 0, ctx.Err()
				}
			default: // too slow, and ignores its context
				time.Sleep(time.Second)
				return 12, nil
			}
		}
		var got []parallel.Result[int]
		a, err := parallel.New(rt, parallel.Config{Limit: 3, Timeout: 100 * time.Millisecond}, work, collect(&got))
		require.NoError(t, err)
		postAll(t, a, 0, 1, 2)
		a.Close()
		start := time.Now()
		err = a.Wait(context.Background())
		assert.Equal(t, time.Second, time.Since(start), "work that ignores its context runs on")
		assert.ErrorIs(t, err, context.DeadlineExceeded)

		require.Len(t, got, 3)
		assert.Equal(t, parallel.Result[int]{Seq: 0, Value: 10}, got[0])
		assert.ErrorIs(t, got[1].Err, context.DeadlineExceeded)
		assert.ErrorIs(t, got[2].Err, context.DeadlineExceeded, "returned late, so failed, though it said nothing")
		assert.EqualError(t, got[2].Err, "parallel: item 2 ran past its timeout of 100ms: context deadline exceeded")
		assert.Equal(t, 12, got[2].Value, "the value comes back beside the error")
		st, err := a.Status(context.Background())
		require.NoError(t, err)
		assert.Equal(t, 2, st.Failed)
	})
}

func TestATimeoutIsEachItemsOwnInABatch(t *testing.T) {
	agenttest.InBubble(t, func(t *testing.T, rt *agent.Runtime) {
		const timeout = 10 * time.Millisecond
		gate := make(chan struct{})
		work := func(_ context.Context, v int) (int, error) {
			switch {
			case v < 0:
				<-gate
			case v >= 100:
				time.Sleep(timeout - time.Millisecond) // in time, though a batch of them is not
			}
			return v, nil
		}
		var got []parallel.Result[int]
		a, err := parallel.New(rt, parallel.Config{Limit: 1, Timeout: timeout}, work, collect(&got))
		require.NoError(t, err)
		postAll(t, a, 0, 1, 2, 3)
		synctest.Wait() // they took no time: batches may be as large as DefaultMaxBatch
		postAll(t, a, -1)
		synctest.Wait()
		postAll(t, a, 100, 101, 102)
		synctest.Wait()
		st, err := a.Status(context.Background())
		require.NoError(t, err)
		require.Equal(t, [3]int{1, 3, parallel.DefaultMaxBatch}, [3]int{st.InFlight, st.Queued, st.Batch},
			"the three slow items wait behind the gate and will start as one batch")

		start := time.Now()
		close(gate)
		a.Close()
		require.NoError(t, a.Wait(context.Background()), "each item had its own %v", timeout)
		assert.Equal(t, 3*(timeout-time.Millisecond), time.Since(start), "one after another")
		assert.Len(t, got, 8)
	})
}
