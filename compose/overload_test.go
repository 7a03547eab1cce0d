package compose_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/agent/agenttest"
	"github.com/evolvekit/evolve/buffer"
	"github.com/evolvekit/evolve/compose"
	"github.com/evolvekit/evolve/parallel"
	"github.com/evolvekit/evolve/rate"
	"github.com/stretchr/testify/require"
)

// A producer 100 times faster than the sink pushes 100,000 items through
// rate -> parallel -> buffer. The items inside the chain (accepted by Post,
// not yet seen by the sink) never outnumber the stages' input bounds plus
// the one batch being flushed and handed to the sink; every item arrives once,
// in order.
func TestOverloadStaysWithinTheBoundsAndLosesNothing(t *testing.T) {
	agenttest.InBubble(t, func(t *testing.T, rt *agent.Runtime) {
		const n, size = 100_000, 10
		limit, err := rate.Stage(rate.Config[int]{Rate: 1e9, Burst: 1000, Queue: 50})
		require.NoError(t, err)
		work, err := parallel.Stage(parallel.Config{Limit: 4, Queue: 16}, func(_ context.Context, x int) (int, error) {
			return x*2 + 1, nil
		})
		require.NoError(t, err)
		batches, err := buffer.Stage(buffer.Config[int]{Size: size, Queue: 30}, nil)
		require.NoError(t, err)
		plan := compose.Pipe3(limit, work, batches)

		var accepted, delivered, peak atomic.Int64
		next := 0
		chain, err := compose.Start(rt, plan, func(b []int) {
			time.Sleep(time.Duration(len(b)) * 100 * time.Microsecond) // the slow sink: 100µs an item
			for _, v := range b {
				if v != next*2+1 {
					t.Errorf("item %d: got %d", next, v)
				}
				next++
			}
			delivered.Add(int64(len(b)))
		})
		require.NoError(t, err)
		ctx := context.Background()
		st, err := chain.Status(ctx)
		require.NoError(t, err)
		require.Equal(t, 50+16+30, st.Bound, "the stages' queues")

		for i := range n {
			if i%size == 0 {
				time.Sleep(size * time.Microsecond) // the fast producer: 1µs an item
			}
			require.NoError(t, chain.Post(ctx, i))
			if in := accepted.Add(1) - delivered.Load(); in > peak.Load() {
				peak.Store(in)
			}
		}
		chain.Close()
		require.NoError(t, chain.Wait(ctx))

		require.Equal(t, n, next, "items that reached the sink")
		bound := int64(st.Bound + size)
		require.LessOrEqual(t, peak.Load(), bound)
		t.Logf("%d items; at most %d inside the chain at once; bound %d (stage queues %d + one batch %d)",
			n, peak.Load(), bound, st.Bound, size)
	})
}
