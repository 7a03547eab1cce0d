package cell

import (
	"fmt"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/internal/bridge"
	"github.com/evolvekit/evolve/internal/fair"
	"github.com/evolvekit/evolve/internal/spec"
	"github.com/evolvekit/evolve/internal/trace"
)

// Start starts the agent s describes on rt, wired as w says. The caller
// has checked rt and s. It returns agent.ErrClosed once rt has shut down.
func Start[I, V, S, W, R, O any](rt *agent.Runtime, s spec.Spec[S, W, R, O], w Wiring[O]) (*Agent[I, V], error) {
	parts := bridge.Runtime(rt)
	h := newAgent[I, V](parts, s.Name, s.Queue)
	h.line = trace.NewLine(parts.Tracer, s.Name, s.Key != nil && s.Follow.Seq == nil && !s.Follow.Batches)
	if of, ok := s.Key.(func(I) string); ok && of != nil && s.KeyQueue < s.Queue {
		// A key's bound below the queue's: Post counts each key's items.
		h.in.keyOf, h.in.keys = of, fair.NewCounts(s.KeyQueue)
	}
	jobs := make(chan job[W, R])
	h.dismiss = func() { close(jobs) }
	if err := parts.Adopt(h); err != nil {
		return nil, err
	}
	// The actor may run (and log, and start work that sends to it) before
	// Start returns, so its PID and logger are settled first.
	id := parts.ID()
	h.id = id
	h.pid.Store(parts.System.NewLocalPID(id))
	h.log = parts.Log.With().Str("agent", s.Name).Str("pid", id).Logger()
	c := &cell[S, I, W, R, O, V]{spec: s, state: s.Initial(), h: h, wire: w.settled(h.grant), timers: make(map[uint64]timer), fl: trace.NewFollower(h.line, s.Follow)}
	if s.DeadLetters != nil {
		c.wire.Dead = s.DeadLetters
	}
	c.crew.jobs = jobs
	h.takeIn = c.takeIn
	if s.Open != nil {
		port, err := s.Open(func(m agent.Msg) bool { return h.post(m) }, h.log, h.line)
		if err != nil {
			h.cancel(err)
			parts.Release(h)
			return nil, fmt.Errorf("agent %s: %w", s.Name, err)
		}
		c.port = port
	}
	props := actor.PropsFromProducer(func() actor.Actor { return c }, actor.WithDispatcher(parts.Dispatch))
	if _, err := parts.System.Root.SpawnNamed(props, id); err != nil {
		if c.port.Close != nil {
			c.port.Close()
		}
		h.cancel(err)
		h.unmeter()
		parts.Release(h)
		return nil, fmt.Errorf("agent %s: %w", s.Name, err)
	}
	h.spawnedNow()
	return h, nil
}

// Send hands the agent behind h m, a message its evolve takes (an
// agent.Set, a pace event), for it to stamp; h is an *Agent or a handle
// that embeds one. It returns agent.ErrClosed once the agent has ended,
// and an error when h is not an agent this module runs. It does not wait
// for evolve to take m.
func Send(h any, m agent.Msg) error {
	a, ok := h.(interface{ send(agent.Msg) error })
	if !ok {
		return fmt.Errorf("agent: %T is not an agent started by this module", h)
	}
	return a.send(m)
}

// LoadOf returns the agent.Load a status embeds, or the zero Load.
func LoadOf(status any) agent.Load {
	l, _ := bridge.LoadOf(status)
	load, _ := l.(agent.Load)
	return load
}
