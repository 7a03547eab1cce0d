package bench_test

import (
	"context"
	"log/slog"
	"testing"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/spawn"
)

// BenchmarkAgent posts b.N messages, from the benchmark's goroutine, to one
// agent whose evolve counts each message and gives its input slot back, and
// sends as many to a bare protoactor actor that counts them; one op is one
// message. Both report msg/s.
func BenchmarkAgent(b *testing.B) {
	b.Run("evolve", agentEvolve)
	b.Run("protoactor", agentProtoactor)
}

// counter is the trivial agent: it counts what it takes, gives each input
// slot back at once, finishes on Close, and answers a Query with its count.
type counter struct{ seen int }

// counterEvolve takes the messages the runtime sends a standalone agent
// that starts no work: Input, Pull (it emits nothing, so demand needs no
// bookkeeping), Close and Query; anything else is Unhandled.
func counterEvolve(s counter, m agent.Msg) (counter, []agent.Effect) {
	switch m := m.(type) {
	case agent.Input[string]:
		s.seen += len(m.Items)
		return s, []agent.Effect{agent.Demand{N: len(m.Items)}}
	case agent.Pull:
		return s, nil
	case agent.Close:
		return s, []agent.Effect{agent.Finish{}}
	case agent.Query:
		return s, []agent.Effect{agent.Reply[int]{To: m.ID, Value: s.seen}}
	default:
		return s, []agent.Effect{agent.Unhandled{}}
	}
}

// agentEvolve starts one counter with spawn.New and an input queue of 1024,
// Posts b.N times, Closes, Waits, and checks the count in its final status.
func agentEvolve(b *testing.B) {
	rt := agent.NewRuntime()
	defer rt.Shutdown(context.Background())
	h, err := spawn.New[string, int](rt, spawn.Spec[counter, struct{}, struct{}, struct{}]{
		Name: "counter", Evolve: counterEvolve, Queue: 1024,
	}, nil)
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
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "msg/s")
	n, err := h.Status(ctx)
	if err != nil {
		b.Fatal(err)
	}
	if n != b.N {
		b.Fatalf("agent counted %d of %d messages", n, b.N)
	}
}

// agentProtoactor sends b.N messages with Root.Send to an actor with an
// unbounded mailbox that counts them, then a last message it answers by
// closing a channel.
func agentProtoactor(b *testing.B) {
	sys := actor.NewActorSystem(actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger {
		return slog.New(slog.DiscardHandler)
	}))
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
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "msg/s")
	if err := sys.Root.StopFuture(pid).Wait(); err != nil {
		b.Fatal(err)
	}
	if n != b.N {
		b.Fatalf("actor counted %d of %d messages", n, b.N)
	}
}
