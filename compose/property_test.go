package compose_test

import (
	"context"
	"fmt"
	"math/rand/v2"
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

// Random chains (rate -> parallel -> buffer, or the same with a second
// parallel stage, each with random limits, bounds and work times) under
// random bursts of posts: every item reaches the sink exactly once, in order
// when every parallel stage is ordered, and the items inside the chain never
// outnumber the stages' bounds plus the batch at the sink.
func TestRandomChainsLoseNothingAndStayBounded(t *testing.T) {
	const chains, items = 40, 1500
	for seed := range uint64(chains) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			agenttest.InBubble(t, func(t *testing.T, rt *agent.Runtime) {
				randomChain(t, rt, rand.New(rand.NewPCG(seed, 7)), items)
			})
		})
	}
}

func randomChain(t *testing.T, rt *agent.Runtime, r *rand.Rand, n int) {
	ordered := r.IntN(2) == 0
	size := 1 + r.IntN(12)
	work := func(ctx context.Context, x int) (int, error) {
		time.Sleep(time.Duration(r2(x)) * time.Microsecond) // deterministic per item
		return x, nil
	}
	limit, err := rate.Stage(rate.Config[int]{Rate: float64(1e4 + r.IntN(1e6)), Burst: 1 + r.IntN(50), Queue: 1 + r.IntN(40)})
	require.NoError(t, err)
	p1, err := parallel.Stage(parallel.Config{Limit: 1 + r.IntN(8), Queue: 1 + r.IntN(40), Unordered: !ordered && r.IntN(2) == 0}, work)
	require.NoError(t, err)
	p2, err := parallel.Stage(parallel.Config{Name: "second", Limit: 1 + r.IntN(8), Queue: 1 + r.IntN(40), Unordered: !ordered}, work)
	require.NoError(t, err)
	b, err := buffer.Stage(buffer.Config[int]{Size: size, Queue: size + r.IntN(40), MaxWait: time.Duration(r.IntN(3)) * time.Millisecond},
		nil)
	require.NoError(t, err)
	plan := compose.Pipe3(limit, p1, b)
	if r.IntN(2) == 0 {
		plan = compose.Pipe4(limit, p1, p2, b)
	}

	var accepted, delivered, peak atomic.Int64
	seen := make([]int, n)
	var got []int
	sinkDelay := time.Duration(r.IntN(300)) * time.Microsecond
	c, err := compose.Start(rt, plan, func(batch []int) {
		time.Sleep(sinkDelay)
		for _, v := range batch {
			seen[v]++
		}
		got = append(got, batch...)
		delivered.Add(int64(len(batch)))
	})
	require.NoError(t, err)
	st, err := c.Status(context.Background())
	require.NoError(t, err)
	for i := 0; i < n; {
		burst := min(n-i, r.IntN(60))
		for range burst {
			require.NoError(t, c.Post(context.Background(), i))
			if in := accepted.Add(1) - delivered.Load(); in > peak.Load() {
				peak.Store(in)
			}
			i++
		}
		time.Sleep(time.Duration(r.IntN(500)) * time.Microsecond)
	}
	c.Close()
	require.NoError(t, c.Wait(context.Background()))
	for v, k := range seen {
		require.Equal(t, 1, k, "item %d reached the sink %d times", v, k)
	}
	if ordered {
		for i, v := range got {
			require.Equal(t, i, v)
		}
	}
	require.LessOrEqual(t, peak.Load(), int64(st.Bound+size))
}

// r2 is a work time in microseconds that varies from item to item.
func r2(x int) int { return (x * 7919) % 500 }
