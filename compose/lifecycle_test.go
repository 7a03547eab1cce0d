package compose_test

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/agent/agenttest"
	"github.com/evolvekit/evolve/buffer"
	"github.com/evolvekit/evolve/compose"
	"github.com/evolvekit/evolve/internal/bridge"
	"github.com/evolvekit/evolve/parallel"
	"github.com/evolvekit/evolve/rate"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

// footprint is what a runtime holds at one moment: the goroutines of the
// process, the heap after a collection, and the actors on the runtime.
type footprint struct {
	goroutines int
	heap       uint64
	actors     int
	others     goleak.Option // ignores the goroutines there were
}

func measure(rt *agent.Runtime) footprint {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	actors := 0
	for _, bucket := range bridge.Runtime(rt).System.ProcessRegistry.LocalPIDs.LocalPIDs {
		actors += bucket.Count()
	}
	return footprint{goroutines: runtime.NumGoroutine(), heap: ms.HeapAlloc, actors: actors, others: goleak.IgnoreCurrent()}
}

// flat checks that after holds no more than before, but for a MiB of heap,
// and the goroutines with which the runtime runs actors: they wait for the
// next actor with messages, and are as many as ran at once.
func flat(t *testing.T, what string, before, after footprint) {
	t.Helper()
	t.Logf("%s: goroutines %d -> %d, heap %d KiB -> %d KiB, actors %d -> %d", what,
		before.goroutines, after.goroutines, before.heap>>10, after.heap>>10, before.actors, after.actors)
	assert.NoError(t, goleak.Find(before.others, goleak.IgnoreAnyFunction("github.com/evolvekit/evolve/agent.(*dispatcher).loop")),
		"%s left goroutines behind", what)
	assert.LessOrEqual(t, int64(after.heap)-int64(before.heap), int64(1<<20), "%s left memory behind", what)
	assert.Equal(t, before.actors, after.actors, "%s left actors on the runtime", what)
}

// A program that starts an agent or a chain per request, closes it and
// waits, never stops one: a finished agent leaves no actor, no goroutine and
// no memory behind, so the runtime's footprint stays flat however many come
// and go.
func TestFinishedAgentsAndChainsLeaveNothingBehind(t *testing.T) {
	if testing.Short() {
		t.Skip("starts 11,000 agents and chains")
	}
	rt := agenttest.Runtime(t)
	ctx := context.Background()
	double := func(_ context.Context, x int) (int, error) { return 2 * x, nil }

	oneAgent := func() {
		var got int
		h, err := parallel.New(rt, parallel.Config{Limit: 2}, double, func(r parallel.Result[int]) { got = r.Value })
		require.NoError(t, err)
		require.NoError(t, h.Post(ctx, 21))
		h.Close()
		require.NoError(t, h.Wait(ctx))
		require.Equal(t, 42, got)
		st, err := h.Status(ctx)
		require.NoError(t, err, "a finished agent still answers")
		require.Equal(t, 1, st.Done)
	}
	limit, err := rate.Stage(rate.Config[int]{Rate: 1e9, Burst: 10})
	require.NoError(t, err)
	work, err := parallel.Stage(parallel.Config{Limit: 2}, double)
	require.NoError(t, err)
	lines, err := buffer.Stage(buffer.Config[int]{Size: 2, MaxWait: time.Millisecond}, nil)
	require.NoError(t, err)
	oneChain := func() {
		n := 0
		c, err := compose.Start(rt, compose.Pipe3(limit, work, lines), func(b []int) { n += len(b) })
		require.NoError(t, err)
		for i := range 3 {
			require.NoError(t, c.Post(ctx, i))
		}
		c.Close()
		require.NoError(t, c.Wait(ctx))
		<-c.Done()
		require.Equal(t, 3, n)
		st, err := c.Status(ctx)
		require.NoError(t, err)
		require.Equal(t, 3, st.Done)
	}

	for range 200 { // the runtime's own goroutines and pools settle
		oneAgent()
		oneChain()
	}
	before := measure(rt)
	for range 10_000 {
		oneAgent()
	}
	flat(t, "10,000 agents", before, measure(rt))

	before = measure(rt)
	for range 1_000 {
		oneChain()
	}
	flat(t, "1,000 chains", before, measure(rt))
}
