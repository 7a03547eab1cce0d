package adaptive_test

import (
	"testing"
	"time"

	"github.com/evolvekit/evolve/adaptive"
	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/agent/agenttest"
	"github.com/evolvekit/evolve/parallel"
)

// BenchmarkEvolve measures the pure part alone: per item, one Input that
// starts it and one Done that emits it and feeds the controller, with the
// limit in flight.
func BenchmarkEvolve(b *testing.B) {
	for _, c := range []adaptive.Controller{adaptive.Hill{}, adaptive.Fixed{}} {
		b.Run(c.Name(), func(b *testing.B) {
			s, err := adaptive.NewState[int, int](adaptive.Config{Min: 8, Max: 8, Queue: 8, Controller: c})
			if err != nil {
				b.Fatal(err)
			}
			at := func(i int) time.Time { return agenttest.T0.Add(time.Duration(i) * time.Millisecond) }
			s, _ = adaptive.Evolve(s, agent.Pull{At: at(0), N: agent.Unbounded})
			for i := range 8 {
				s, _ = adaptive.Evolve(s, agent.Input[int]{At: at(0), Items: []int{i}})
			}
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				s, _ = adaptive.Evolve(s, agent.Done[[]parallel.Result[int]]{At: at(i + 1), ID: uint64(i), Result: []parallel.Result[int]{{Seq: uint64(i), Value: i}}})
				s, _ = adaptive.Evolve(s, agent.Input[int]{At: at(i + 1), Items: []int{i}})
			}
		})
	}
}
