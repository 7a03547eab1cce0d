package book

import (
	"testing"
	"time"

	"github.com/evolvekit/evolve/agent"
)

// BenchmarkEvolveDeep measures the master alone, per item, set up as the
// remote stage's benchmark of tiny items is: a deep window (8192 items),
// two workers of 64 slots each granted a prefetch of 2048, so that most
// items leased wait on their worker for a slot, and a want to keep. Each
// round, a microsecond after the last, brings an Input of 256 items and,
// from each worker, the outcomes of its 128 oldest tasks with as many
// asked for again; their results are emitted in input order.
func BenchmarkEvolveDeep(b *testing.B) {
	const (
		input, back = 256, 128
		slots       = 64
		prefetch    = 2048
	)
	s, err := newBook[int, int](options[int]{Queue: 2048, Window: 8192, MaxBatch: 512,
		MaxPrefetch: prefetch, Drain: 30 * time.Second})
	if err != nil {
		b.Fatal(err)
	}
	at := time.Now() // with a monotonic reading, as the runtime stamps messages
	s, _ = evolve(s, agent.Stamp(agent.Pull{N: agent.Unbounded}, at))
	held := map[WorkerID][]Task[int]{} // the tasks each worker holds, oldest first
	take := func(fx []agent.Effect) int {
		n := 0
		for _, f := range fx {
			switch f := f.(type) {
			case agent.Send[Dispatch[int]]:
				held[f.Value.Worker] = append(held[f.Value.Worker], f.Value.Tasks...)
			case agent.Emit[Result[int]]:
				n += len(f.Values)
			}
		}
		return n
	}
	for w := WorkerID(1); w <= 2; w++ {
		s, _ = evolve(s, agent.Stamp(agent.Event[Joined]{Value: Joined{Worker: w, Slots: slots, Prefetch: prefetch}}, at))
		s, _ = evolve(s, agent.Stamp(agent.Event[Asked]{Value: Asked{Worker: w, N: slots + prefetch}}, at))
	}
	items := make([]int, input)
	outs := make([]Outcome[int], back)
	emitted := 0
	var fx []agent.Effect
	b.ReportAllocs()
	for b.Loop() {
		at = at.Add(time.Microsecond)
		s, fx = evolve(s, agent.Input[int]{Items: items, At: at})
		emitted += take(fx)
		for w := WorkerID(1); w <= 2; w++ {
			n := min(back, len(held[w]))
			for i, t := range held[w][:n] {
				outs[i] = Outcome[int]{Item: t.Item, Attempt: t.Attempt, Value: 2 * t.Value}
			}
			held[w] = held[w][n:]
			s, fx = evolve(s, agent.Event[Outcomes[int]]{Value: Outcomes[int]{Worker: w, Outcomes: outs[:n], Asked: n}, At: at})
			emitted += take(fx)
		}
	}
	if emitted == 0 {
		b.Fatal("nothing emitted")
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(emitted), "ns/item")
}
