package agent

import "context"

// Spec describes an agent to [Spawn]: its initial state, its evolve function,
// the bound of its input queue, the work its [Start] effects run, and where
// its [Emit] values go. Agent packages build a Spec from their own
// configuration; most programs never touch one.
//
// The type parameters are the state S, the posted item I, the work W that
// Start carries, the result R that work returns (delivered in [Done]), the
// output O that Emit carries, and the status V that [Reply] carries.
type Spec[S, I, W, R, O, V any] struct {
	// Name names the agent in logs and errors.
	Name string
	// State is the agent's initial state.
	State S
	// Evolve is the agent's behaviour. Required.
	Evolve Evolve[S]
	// Queue bounds the items posted but not yet taken in by evolve (given
	// back with [Demand]). Required, at least 1.
	Queue int
	// Run performs one [Start] effect's work. It may be nil for an agent that
	// starts no work. A panic in Run becomes a *PanicError in [Done].
	Run func(context.Context, W) (R, error)
	// Sink receives emitted values, one at a time, in order, on the agent's
	// own goroutine: a slow sink slows the agent, and a sink that waits on
	// the agent itself (posting to it, asking its status) never returns.
	// Nil discards them. A panic in Sink is logged and becomes the agent's
	// error, returned by Wait. [NewStage] does not use it: a stage's Outlet
	// decides where its values go.
	Sink func(O)
}

// DefaultQueue is the input bound agent packages use when their
// configuration leaves Queue at zero.
const DefaultQueue = 64
