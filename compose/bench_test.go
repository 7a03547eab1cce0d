package compose_test

import (
	"context"
	"math"
	"testing"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/buffer"
	"github.com/evolvekit/evolve/compose"
	"github.com/evolvekit/evolve/parallel"
	"github.com/evolvekit/evolve/rate"
)

// BenchmarkChain pushes b.N items through rate (no real limit) -> parallel
// (limit 4, work x*2+1) -> buffer (batches of 100) -> a sink that counts.
func BenchmarkChain(b *testing.B) {
	rt := agent.NewRuntime()
	defer rt.Shutdown(context.Background())
	limit, _ := rate.Stage(rate.Config[int]{Rate: math.MaxFloat64, Burst: 1 << 30})
	work, _ := parallel.Stage(parallel.Config{Limit: 4}, func(_ context.Context, x int) (int, error) { return x*2 + 1, nil })
	batches, _ := buffer.Stage(buffer.Config{Size: 100}, func(context.Context, []int) error { return nil })
	var sum int
	c, err := compose.Start(rt, compose.Then(compose.Then(compose.From(limit), work), batches), func(b []int) { sum += len(b) })
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		if err := c.Post(ctx, i); err != nil {
			b.Fatal(err)
		}
	}
	c.Close()
	if err := c.Wait(ctx); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	if sum != b.N {
		b.Fatalf("sink saw %d of %d items", sum, b.N)
	}
}
