package core

import (
	"fmt"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/internal/bridge"
)

// Spawn starts the agent spec describes on rt, on its own: it holds
// unbounded demand, its values go to sink (nil discards them) and its input
// slots back to its handle's Post. The caller has checked rt and spec. It
// returns agent.ErrClosed once rt has shut down.
func Spawn[I, V, S, W, R, O any](rt *agent.Runtime, spec Spec[S, W, R, O], sink func(O)) (*Agent[I, V], error) {
	return spawn(rt, spec, func(h *Agent[I, V]) ports[O] { return alone(h, sink) })
}

// spawn starts the agent spec describes, with the ports wire returns for its
// handle.
func spawn[I, V, S, W, R, O any](rt *agent.Runtime, spec Spec[S, W, R, O], wire func(*Agent[I, V]) ports[O]) (*Agent[I, V], error) {
	parts := bridge.Runtime(rt)
	h := newAgent[I, V](parts, spec.Name, spec.Queue)
	jobs := make(chan job[W, R])
	h.dismiss = func() { close(jobs) }
	if err := parts.Adopt(h); err != nil {
		return nil, err
	}
	// The actor may run (and log, and start work that sends to it) before
	// spawn returns, so its PID and logger are settled first.
	id := parts.ID()
	h.id = id
	h.pid.Store(parts.System.NewLocalPID(id))
	h.log = parts.Log.With().Str("agent", spec.Name).Str("pid", id).Logger()
	c := &cell[S, I, W, R, O, V]{spec: spec, state: spec.initial(), h: h, ports: wire(h), timers: make(map[uint64]timer)}
	if spec.DeadLetters != nil {
		c.ports.dead = spec.DeadLetters
	}
	c.crew.jobs = jobs
	h.takeIn = c.takeIn
	if spec.Open != nil {
		port, err := spec.Open(func(m agent.Msg) bool { return h.post(m) }, h.log)
		if err != nil {
			h.cancel(err)
			parts.Release(h)
			return nil, fmt.Errorf("agent %s: %w", spec.Name, err)
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
		return nil, fmt.Errorf("agent %s: %w", spec.Name, err)
	}
	return h, nil
}

// Set hands the agent behind h an agent.Set message carrying c, for a
// change of its settings while it runs. It returns agent.ErrClosed once the
// agent has ended, and an error when h is not an agent this module runs. It
// does not wait for the change to take effect.
func Set[C any](h any, c C) error {
	return Adjust(h, agent.Set[C]{Value: c})
}

// Adjust hands the agent behind h m, an agent.Set message made elsewhere
// (by a budget.Share, say), as Set does; the agent stamps it anew.
func Adjust(h any, m agent.Msg) error {
	a, ok := h.(interface{ adjust(agent.Msg) error })
	if !ok {
		return fmt.Errorf("agent: %T is not an agent started by this module", h)
	}
	return a.adjust(m)
}
