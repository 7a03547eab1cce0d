package spawn

import (
	"context"
	"errors"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/internal/core"
	"github.com/evolvekit/evolve/internal/errs"
)

// ErrConfig is reported by the errors [New] and [Stage] return for a Spec
// or a runtime that is missing or out of range: the message names it, as in
// "spawn: queue must not be negative, got -1".
var ErrConfig = errors.New("spawn: invalid setting")

// Spec describes a kind of agent. Its types are the state S, the work W
// that its agent.Start effects carry, the result R that work returns (in
// agent.Done) and the values O that agent.Emit carries. The items it takes
// (agent.Input) and the status it answers agent.Query with (agent.Reply) are
// the type arguments of [New] and [Stage].
//
// The zero Spec is not valid: Evolve is required.
type Spec[S, W, R, O any] struct {
	// Name names the agent in logs and errors; "" means "agent".
	Name string
	// State is the agent's initial state.
	State S
	// Evolve is the agent's behaviour. Required.
	Evolve agent.Evolve[S]
	// Queue bounds the items accepted but not yet given back with
	// agent.Demand. 0 means agent.DefaultQueue; it must not be negative.
	Queue int
	// Work does the work of one agent.Start, on a goroutine the runtime
	// owns; ctx ends when the agent is stopped or asks for agent.Cancel. A
	// panic in it becomes an *agent.PanicError in the agent.Done. Nil for
	// an agent that starts no work.
	Work func(ctx context.Context, w W) (R, error)
	// Workers, when not nil, makes the agent share the workers of a chain
	// started with compose.WithWorkers: it says what the agent's status
	// (the value of its agent.Reply, a V) tells of its workers. Limit,
	// required with it, returns the message that sets the agent's limit
	// to n, an agent.Set of its own setting: its evolve must take it, list
	// it in Takes, and start no more work at once than the limit it
	// carries. The chain reads the status on a period and sends the Set
	// whenever the agent's share is not its limit. Both are called outside
	// the agent, by what shares the workers (a chain, or the simulator),
	// and must not block. Nil for an agent whose workers are its own.
	Workers func(status any) Workers
	Limit   func(n int) agent.Msg
	// Takes holds a zero value of each agent.Set and agent.Event message
	// Evolve takes, as in []agent.Msg{agent.Set[Limit]{}}: their payload
	// types are the agent's own, which its other types do not say, and a
	// replay (package replay) reads a recorded one back only into a type
	// named here.
	Takes []agent.Msg
}

// New starts the agent spec describes on rt, on its own: it takes items of
// type I, answers queries with a V, and hands the values it emits to sink,
// one at a time, on its own goroutine (nil discards them). It holds
// unbounded demand. It returns an [ErrConfig] when rt is nil or spec is not
// valid, and agent.ErrClosed once rt has shut down.
func New[I, V, S, W, R, O any](rt *agent.Runtime, spec Spec[S, W, R, O], sink func(O)) (agent.Handle[I, V], error) {
	if rt == nil {
		return nil, errs.Invalid(ErrConfig, "spawn", "runtime must not be nil")
	}
	cs, err := build(spec)
	if err != nil {
		return nil, err
	}
	h, err := core.Spawn[I, V](rt, cs, sink)
	if err != nil {
		return nil, err
	}
	return h, nil
}

// Stage returns the agent spec describes as a stage of a chain: it takes
// items of type I and answers queries with a V. It returns an [ErrConfig]
// when spec is not valid.
func Stage[I, V, S, W, R, O any](spec Spec[S, W, R, O]) (agent.Stage[I, O], error) {
	cs, err := build(spec)
	if err != nil {
		return agent.Stage[I, O]{}, err
	}
	return core.Wrap(core.NewStage[I, V](cs)), nil
}

// Set hands the agent behind h an agent.Set[C] message carrying c, without
// waiting for its evolve to see it. It returns agent.ErrClosed once the
// agent has ended. An evolve function that does not take a Set[C] fails
// the agent.
func Set[I, V, C any](h agent.Handle[I, V], c C) error {
	return core.Set(h, c)
}

// build checks spec and turns it into the machinery's own.
func build[S, W, R, O any](spec Spec[S, W, R, O]) (core.Spec[S, W, R, O], error) {
	cs := core.Spec[S, W, R, O]{Name: spec.Name, State: spec.State, Evolve: spec.Evolve, Queue: spec.Queue, Takes: spec.Takes}
	switch {
	case spec.Evolve == nil:
		return cs, errs.Invalid(ErrConfig, "spawn", "evolve must not be nil")
	case spec.Queue < 0:
		return cs, errs.Invalid(ErrConfig, "spawn", "queue must not be negative, got %d", spec.Queue)
	case (spec.Workers == nil) != (spec.Limit == nil):
		return cs, errs.Invalid(ErrConfig, "spawn", "workers and limit go together: a chain shares workers with an agent whose status it reads and whose limit it sets")
	}
	cs.Share = share(spec)
	if cs.Name == "" {
		cs.Name = "agent"
	}
	if cs.Queue == 0 {
		cs.Queue = agent.DefaultQueue
	}
	if work := spec.Work; work != nil {
		cs.Work = func(ctx context.Context, _ uint64, w W) (R, error) { return work(ctx, w) }
	}
	return cs, nil
}
