package agent

import (
	"context"
	"log/slog"
	"sync"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/evolvekit/evolve/internal/bridge"
	"github.com/evolvekit/evolve/internal/meter"
	"github.com/evolvekit/evolve/internal/trace"
	"github.com/rs/zerolog"
	"go.opentelemetry.io/otel/metric"
	oteltrace "go.opentelemetry.io/otel/trace"
)

// Runtime runs agents: one protoactor actor system shared by every agent
// started on it, a clock, and a logger. Create one with [NewRuntime],
// start agents and chains on it (an agent package's New, compose.Start),
// and end it with [Runtime.Shutdown], which stops whatever still runs.
//
// An agent that has finished leaves the runtime on its own, so a runtime
// can serve a program for its whole life, a server starting a chain per
// request say, without growing.
//
// A Runtime is safe for concurrent use. Its zero value is not usable.
type Runtime struct {
	parts    bridge.Parts
	dispatch *dispatcher

	provider   metric.MeterProvider // WithMeterProvider's
	histograms *Histograms          // WithHistograms's

	mu      sync.Mutex
	stopped bool
	agents  map[bridge.Agent]struct{}
	ids     []string // the actor IDs of agents that have ended, for reuse
}

// Option configures a [Runtime].
type Option func(*Runtime)

// WithLogger sends the runtime's logs to l: an agent's LogStatus events,
// the failures of agents (a panic in evolve or in a sink), and protoactor's
// own warnings and errors. Without it nothing is logged. Nothing is logged
// at info level unless asked for by LogStatus.
func WithLogger(l zerolog.Logger) Option {
	return func(rt *Runtime) { rt.parts.Log = l }
}

// WithMeterProvider publishes the status of every agent started on the
// runtime as OpenTelemetry instruments of mp's meter
// "github.com/evolvekit/evolve", each measurement with the agent's name as
// the attribute "agent":
//
//   - counters evolve.items.in, evolve.items.out, evolve.items.failed,
//     evolve.items.retried and evolve.items.dropped;
//   - gauges evolve.queued, evolve.in_flight, evolve.demand (not while
//     unbounded), evolve.limit (agents that have one) and evolve.tokens
//     (rate agents); and, with the attribute "tag" too, for each tag of a
//     remote stage, evolve.desired_workers (the workers it wants) and
//     evolve.backlog (the items it has queued);
//   - histograms evolve.work.duration, of each piece of work, and
//     evolve.queue.wait, of each item's wait in the input queue, in
//     seconds, with buckets of 1, 2 and 5 times each power of ten from
//     10 µs to 10 s, then 20 s and 60 s (mp's views may set others).
//
// Nothing polls the agents: each publishes its status as it goes, after a
// batch of messages it takes in, at most once a millisecond (a timer
// publishes the last batch's within it), and the instruments read what was
// published last. An agent's gauges are observed until it ends; its
// counters, by its name, for as long as the runtime runs: the agents that
// bear one name (started one per request, say) make one set of counters
// that counts on across them, as a Prometheus counter must for rate() to
// hold, so give a name per kind of agent, not per request. Each record of a
// histogram costs about 85 ns; with [WithHistograms] the agents count them
// in plain memory instead. Without this option the agents measure nothing.
// If mp refuses an instrument, the runtime logs it and measures nothing.
func WithMeterProvider(mp metric.MeterProvider) Option {
	return func(rt *Runtime) { rt.provider = mp }
}

// WithTracerProvider follows every item posted to an agent or chain on the
// runtime with spans of tp's tracer "github.com/evolvekit/evolve", in one
// trace per item: a child of the span in the context given to Post, or a
// new trace (tp's sampler decides which are recorded). Each agent the item
// passes adds a span "process <agent>", from accepted to passed on, a
// child of the one before; each attempt of its work a child span "work
// <agent>", with its error recorded, and whose span the work's context
// carries; a dead letter marks its span failed. A buffer's batch is a
// span "batch <agent>" linked to its items' spans. docs/traces.md says how
// items are followed from agent to agent, and what it costs. Without this
// option nothing is traced, and tracing costs nothing.
func WithTracerProvider(tp oteltrace.TracerProvider) Option {
	return func(rt *Runtime) { rt.parts.Tracer = trace.New(tp) }
}

// WithClock makes the runtime stamp messages and arm timers with c instead
// of the system clock. It is meant for tests.
func WithClock(c Clock) Option {
	return func(rt *Runtime) { rt.parts.Clock = c }
}

// NewRuntime returns a runtime. It starts no goroutine until an agent gets a
// message; the goroutines that run agents' actors then stay, waiting for the
// next message, until Shutdown.
func NewRuntime(opts ...Option) *Runtime {
	rt := &Runtime{
		parts:    bridge.Parts{Clock: systemClock{}, Log: zerolog.Nop()},
		dispatch: newDispatcher(),
		agents:   make(map[bridge.Agent]struct{}),
	}
	for _, o := range opts {
		o(rt)
	}
	if rt.provider != nil || rt.histograms != nil {
		var hist *meter.Histograms
		if rt.histograms != nil {
			hist = rt.histograms.h
		}
		m, err := meter.New(rt.provider, hist)
		if err != nil {
			rt.parts.Log.Error().Err(err).Msg("metrics are off: the meter provider refused an instrument")
		}
		rt.parts.Meter = m
	}
	handler := slogHandler(rt.parts.Log)
	rt.parts.System = actor.NewActorSystem(actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger {
		return slog.New(handler)
	}))
	shrinkRegistry(rt.parts.System)
	rt.parts.Dispatch = rt.dispatch
	rt.parts.Adopt, rt.parts.Release = rt.adopt, rt.release
	rt.parts.ID, rt.parts.Free = rt.id, rt.free
	return rt
}

// Shutdown stops every agent still running on rt, all at once (queued input
// is dropped; Close and Wait first for a graceful end), waits for the
// goroutines they own, and shuts the actor system down. It returns ctx.Err()
// if ctx ends first. Starting an agent on a runtime that was shut down fails
// with [ErrClosed]. Calling Shutdown again is harmless.
func (rt *Runtime) Shutdown(ctx context.Context) error {
	rt.mu.Lock()
	if rt.stopped {
		rt.mu.Unlock()
		return nil
	}
	rt.stopped = true
	agents := make([]bridge.Agent, 0, len(rt.agents))
	for a := range rt.agents {
		agents = append(agents, a)
	}
	rt.mu.Unlock()

	for _, a := range agents {
		a.Halt()
	}
	err := settled(ctx, agents)
	if rt.parts.Meter != nil {
		_ = rt.parts.Meter.Close() // fails only if already unregistered
	}
	rt.parts.System.Shutdown()
	if derr := rt.dispatch.stop(ctx); err == nil {
		err = derr
	}
	return err
}

// settled waits until every agent's workers have returned and its actor is
// gone, or ctx ends.
func settled(ctx context.Context, agents []bridge.Agent) error {
	for _, a := range agents {
		if err := a.Stop(ctx); err != nil {
			return err
		}
	}
	for _, a := range agents {
		select {
		case <-a.Done():
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// adopt records a running agent so Shutdown can stop it.
func (rt *Runtime) adopt(a bridge.Agent) error {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if rt.stopped {
		return ErrClosed
	}
	rt.agents[a] = struct{}{}
	return nil
}

// release forgets an agent that has ended.
func (rt *Runtime) release(a bridge.Agent) {
	rt.mu.Lock()
	delete(rt.agents, a)
	rt.mu.Unlock()
}

// id returns an actor ID that no running agent has: one of an agent that
// ended, or a new one.
func (rt *Runtime) id() string {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if n := len(rt.ids); n > 0 {
		id := rt.ids[n-1]
		rt.ids = rt.ids[:n-1]
		return id
	}
	return rt.parts.System.ProcessRegistry.NextId()
}

// free takes back the actor ID of an agent whose actor is gone.
func (rt *Runtime) free(id string) {
	rt.mu.Lock()
	rt.ids = append(rt.ids, id)
	rt.mu.Unlock()
}
