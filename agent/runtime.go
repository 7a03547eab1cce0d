package agent

import (
	"context"
	"errors"
	"log/slog"
	"sync"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/rs/zerolog"
)

// Runtime runs agents: one protoactor actor system shared by every agent
// spawned on it, a clock, and a logger. Create one with [NewRuntime], spawn
// agents on it (parallel.New, rate.New, buffer.New, ...), and end it with
// [Runtime.Shutdown], which stops every agent still running and waits for the
// goroutines they own.
//
// A Runtime is safe for concurrent use. Its zero value is not usable.
type Runtime struct {
	system   *actor.ActorSystem
	dispatch *dispatcher
	clock    Clock
	log      zerolog.Logger

	mu      sync.Mutex
	stopped bool
	agents  map[stopper]struct{}
}

// stopper is what the runtime needs of a running agent to shut it down.
type stopper interface {
	Stop(ctx context.Context) error
}

// Option configures a [Runtime].
type Option func(*Runtime)

// WithLogger sends the runtime's logs, protoactor's included, to l. Without
// it nothing is logged.
func WithLogger(l zerolog.Logger) Option {
	return func(rt *Runtime) { rt.log = l }
}

// WithClock makes the runtime stamp messages and arm timers with c instead of
// the system clock. It is meant for tests.
func WithClock(c Clock) Option {
	return func(rt *Runtime) { rt.clock = c }
}

// NewRuntime starts a runtime. It starts no goroutine until an agent gets a
// message; the goroutines that run agents then stay, waiting, until
// Shutdown.
func NewRuntime(opts ...Option) *Runtime {
	rt := &Runtime{
		dispatch: newDispatcher(),
		clock:    SystemClock{},
		log:      zerolog.Nop(),
		agents:   make(map[stopper]struct{}),
	}
	for _, o := range opts {
		o(rt)
	}
	handler := slogHandler(rt.log)
	rt.system = actor.NewActorSystem(actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger {
		return slog.New(handler)
	}))
	return rt
}

// Logger returns the runtime's logger.
func (rt *Runtime) Logger() zerolog.Logger { return rt.log }

// Clock returns the runtime's clock.
func (rt *Runtime) Clock() Clock { return rt.clock }

// Shutdown stops every agent still running on rt (queued input is dropped;
// use Close and Wait first for a graceful end), waits for the goroutines they
// own, and shuts the actor system down. It returns ctx.Err() if ctx ends
// first. Spawning on a runtime that was shut down fails with [ErrClosed].
func (rt *Runtime) Shutdown(ctx context.Context) error {
	rt.mu.Lock()
	if rt.stopped {
		rt.mu.Unlock()
		return nil
	}
	rt.stopped = true
	agents := make([]stopper, 0, len(rt.agents))
	for a := range rt.agents {
		agents = append(agents, a)
	}
	rt.mu.Unlock()

	var errs []error
	for _, a := range agents {
		errs = append(errs, a.Stop(ctx))
	}
	rt.system.Shutdown()
	errs = append(errs, rt.dispatch.stop(ctx))
	return errors.Join(errs...)
}

// adopt records a running agent so Shutdown can stop it.
func (rt *Runtime) adopt(a stopper) error {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	if rt.stopped {
		return ErrClosed
	}
	rt.agents[a] = struct{}{}
	return nil
}

// release forgets an agent that has stopped.
func (rt *Runtime) release(a stopper) {
	rt.mu.Lock()
	delete(rt.agents, a)
	rt.mu.Unlock()
}
