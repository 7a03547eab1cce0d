package parallel_test

import (
	"context"
	"fmt"
	"math/rand/v2"
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

// BenchmarkEvolve measures the pure part alone: per item, one Done that
// finishes one of the Limit items in flight, picked at random, so results
// finish out of order as work that waits on I/O does, and one Input that
// starts the next item, one item per batch. Its cost must not grow with
// the limit.
func BenchmarkEvolve(b *testing.B) {
	for _, unordered := range []bool{false, true} {
		for _, limit := range []int{10, 100, 1000, 10000} {
			name := fmt.Sprintf("limit=%d", limit)
			if unordered {
				name = "unordered/" + name
			}
			b.Run(name, func(b *testing.B) { benchEvolve(b, limit, unordered) })
		}
	}
}

// benchEvolve runs BenchmarkEvolve at one limit.
func benchEvolve(b *testing.B, limit int, unordered bool) {
	s, err := parallel.NewState[int, int](parallel.Config{Limit: limit, Queue: limit, MaxBatch: 1, Unordered: unordered})
	if err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	var flying []uint64
	started := func(fx []agent.Effect) {
		for _, e := range fx {
			if st, ok := e.(agent.Start[[]int]); ok {
				flying = append(flying, st.ID)
			}
		}
	}
	var fx []agent.Effect
	s, _ = parallel.Evolve(s, agent.Pull{N: agent.Unbounded})
	for i := range limit {
		s, fx = parallel.Evolve(s, agent.Input[int]{Items: []int{i}})
		started(fx)
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		j := r.IntN(len(flying))
		id := flying[j]
		flying[j] = flying[len(flying)-1]
		flying = flying[:len(flying)-1]
		s, fx = parallel.Evolve(s, agent.Done[[]parallel.Result[int]]{ID: id, Result: []parallel.Result[int]{{Seq: id, Value: i}}})
		started(fx)
		s, fx = parallel.Evolve(s, agent.Input[int]{Items: []int{i}})
		started(fx)
	}
}

// BenchmarkKeys is BenchmarkAgent's unordered agent with its items shared
// among 1, 10 and 1,000 keys, beside the same agent without keys: what the
// fair shares cost an item end to end, for trivial work (the worst case:
// the cost of the shares beside the least an item costs) and for work of
// about 2 µs of CPU. The items are posted round robin over the keys, the
// worst order for the lines' look-ups, with a key's bound in the queue
// the queue's whole.
func BenchmarkKeys(b *testing.B) {
	for _, work := range []string{"trivial", "2us"} {
		for _, keys := range []int{0, 1, 10, 1000} {
			name := fmt.Sprintf("%s/keys=%d", work, keys)
			if keys == 0 {
				name = work + "/none"
			}
			b.Run(name, func(b *testing.B) { benchKeys(b, keys, work != "trivial") })
		}
	}
}

// spin is work of about 2 µs of CPU.
func spin(_ context.Context, v int) (int, error) {
	h := uint64(v) | 1
	for range 1500 {
		h ^= h << 13
		h ^= h >> 7
		h ^= h << 17
	}
	return int(h & 1), nil
}

// benchKeys runs BenchmarkKeys for one number of keys, 0 for none, and
// work that spins or not.
func benchKeys(b *testing.B, keys int, spins bool) {
	names := make([]string, max(keys, 1))
	for i := range names {
		names[i] = fmt.Sprintf("client-%d", i)
	}
	cfg := parallel.Config{Limit: 8, Unordered: true}
	if keys > 0 {
		cfg.Key = func(v int) string { return names[v%len(names)] }
		cfg.KeyQueue = agent.DefaultQueue // a key alone fills the queue
	}
	work := double
	if spins {
		work = spin
	}
	rt := agent.NewRuntime()
	defer rt.Shutdown(context.Background())
	a, err := parallel.New(rt, cfg, work, nil)
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
}
