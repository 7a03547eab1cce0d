package parallel_test

import (
	"context"
	"testing"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/parallel"
)

// BenchmarkAgent pushes b.N items with trivial work through a running agent
// with a limit of 8: the cost of one item end to end (a Post, and its share
// of a batch's hand-over to a worker, its Done message and its emit).
func BenchmarkAgent(b *testing.B) {
	for _, cfg := range []parallel.Config{{Name: "ordered", Limit: 8}, {Name: "unordered", Limit: 8, Unordered: true}} {
		b.Run(cfg.Name, func(b *testing.B) {
			rt := agent.NewRuntime()
			defer rt.Shutdown(context.Background())
			a, err := parallel.New(rt, cfg, double, nil)
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				if err := a.Post(ctx, i); err != nil {
					b.Fatal(err)
				}
			}
			a.Close()
			if err := a.Wait(ctx); err != nil {
				b.Fatal(err)
			}
		})
	}
}

// BenchmarkEvolve measures the pure part alone: per item, one Input that
// starts it and one Done that emits it, with Limit items in flight, one
// item per batch.
func BenchmarkEvolve(b *testing.B) {
	for _, limit := range []int{8, 256} {
		b.Run(map[int]string{8: "limit=8", 256: "limit=256"}[limit], func(b *testing.B) {
			s, err := parallel.NewState[int, int](parallel.Config{Limit: limit, Queue: limit, MaxBatch: 1})
			if err != nil {
				b.Fatal(err)
			}
			s, _ = parallel.Evolve(s, agent.Pull{N: agent.Unbounded})
			for i := range limit {
				s, _ = parallel.Evolve(s, agent.Input[int]{Items: []int{i}})
			}
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				s, _ = parallel.Evolve(s, agent.Done[[]parallel.Result[int]]{ID: uint64(i), Result: []parallel.Result[int]{{Seq: uint64(i), Value: i}}})
				s, _ = parallel.Evolve(s, agent.Input[int]{Items: []int{i}})
			}
		})
	}
}
