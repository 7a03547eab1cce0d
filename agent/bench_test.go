package agent_test

import (
	"context"
	"testing"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/evolvekit/evolve/agent"
)

// BenchmarkAgent compares one agent with a trivial evolve (count, give the
// slot back) against a bare protoactor actor doing the same count, both fed
// from one goroutine. The figure is the cost of one message end to end.
func BenchmarkAgent(b *testing.B) {
	b.Run("evolve", func(b *testing.B) {
		rt := agent.NewRuntime()
		defer rt.Shutdown(context.Background())
		h, err := agent.Spawn(rt, agent.Spec[counter, string, struct{}, struct{}, string, int]{
			Name: "counter", Evolve: counterEvolve, Queue: 1024,
		})
		if err != nil {
			b.Fatal(err)
		}
		ctx := context.Background()
		b.ReportAllocs()
		b.ResetTimer()
		for range b.N {
			if err := h.Post(ctx, "x"); err != nil {
				b.Fatal(err)
			}
		}
		h.Close()
		if err := h.Wait(ctx); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "msg/s")
	})
	b.Run("protoactor", func(b *testing.B) {
		sys := actor.NewActorSystem(actor.WithLoggerFactory(discardLogs))
		defer sys.Shutdown()
		done := make(chan struct{})
		n := 0
		pid := sys.Root.Spawn(actor.PropsFromFunc(func(c actor.Context) {
			switch c.Message().(type) {
			case string:
				n++
			case struct{}:
				close(done)
			}
		}))
		b.ReportAllocs()
		b.ResetTimer()
		for range b.N {
			sys.Root.Send(pid, "x")
		}
		sys.Root.Send(pid, struct{}{})
		<-done
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "msg/s")
		sys.Root.StopFuture(pid).Wait()
	})
}
