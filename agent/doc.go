// Package agent is the contract every evolve agent follows and the one
// runtime that runs them.
//
// An agent's whole behaviour is an [Evolve] function: given the current state
// and one [Msg], it returns the next state and the [Effect] values it wants
// performed. Evolve is pure: it starts no goroutines, reads no clock, does no
// I/O and calls no user code. Time arrives inside each message, stamped by the
// runtime from its [Clock]; an agent that needs randomness keeps a seeded
// generator in its state.
//
// The [Runtime] is the imperative shell. It runs each agent in its own
// protoactor-go actor, stamps and delivers messages, runs the work that
// [Start] effects ask for in goroutines it owns and waits for, arms the timers
// that [Timer] effects ask for, hands [Emit] values to the agent's sink, and
// grants [Demand] to the agent's [Handle] so that every input queue stays
// bounded.
//
// Because evolve is a plain function, an agent is unit-tested by calling it:
// package agenttest replays a table of (time, message) steps and collects the
// states and effects, with no actor system, no goroutines and no sleeping.
//
// # Goroutines
//
// Every goroutine the runtime starts has an owner that waits for it. An
// agent's work runs on its workers: a worker runs one [Start] at a time and
// then waits for the next, and a new one starts only when every worker is
// busy, so an agent keeps about as many workers as it ever had work items in
// flight. They go when the agent finishes, fails or is stopped;
// [Handle.Stop] (and so [Runtime.Shutdown]) cancels the work's context and
// waits for them. Actors run on the runtime's own goroutines, which wait for
// the next actor with messages instead of ending, and go at
// [Runtime.Shutdown]. Timers run on the [Clock]; Stop disarms them.
//
// # Panics
//
// A panic in user work becomes a [*PanicError] carrying the value and the
// stack, delivered to the agent in [Done] like any other error: the agent
// lives on and decides what a failure means. A panic in a sink is logged and
// returned by [Handle.Wait]. A panic in evolve is a bug in the agent: the
// agent stops taking input, logs the panic with its stack, and Wait returns
// it. Nothing is recovered silently.
//
// # Flow control
//
// Mailboxes are unbounded; bounds live in the state machines. The handle
// holds one credit per free slot of the agent's input queue and Post spends
// one, so at most the queue's bound of items wait; evolve gives slots back
// with [Demand] as items leave the queue. Downstream, an agent emits only the
// demand it was granted with [Pull].
//
// # Batches
//
// What is sent to an agent gathers in its inbox, and the first arrival after
// the agent went idle sends its actor one message. The actor then hands
// evolve everything that gathered: the demand granted as one [Pull], each
// work result as a [Done], then the items and the other messages (Close, Set,
// Query, Tick) in the order they came, the items between two of those as one
// [Input]; all stamped with one instant. So a busy agent costs one actor
// message per batch rather than per item, and an evolve function sees
// larger Inputs the busier its agent is.
//
// # Stages
//
// A [Stage] is an agent described but not yet started, seen as one step of a
// chain. Started with an [Inlet] and an [Outlet], its Demand becomes a Pull
// for the stage before it, its emitted values become that of the stage after
// it, and its completion closes the stage after it. [MapIn] and [MapOut]
// convert what a stage takes and emits without touching its evolve. Package
// compose builds typed chains from Stages.
package agent
