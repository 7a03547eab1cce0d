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
package agent
