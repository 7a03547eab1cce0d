// Package cell runs one agent on the runtime: its protoactor actor (its
// cell), its inbox, its workers and its handle, from the spec.Spec an
// agent package gives, wired alone or to its neighbours in a chain as
// package core says ([Wiring]). Which of a Spec's ways to step an agent
// the cell calls, and when, is said on the Spec's fields; which of them a
// new agent needs, in package core's doc.
//
// A cell takes in what gathered in its inbox, calls evolve on each message,
// keeps the state and performs the effects. Every goroutine it starts has an
// owner that waits for it: its workers are counted on its handle, which
// Wait and Stop wait on.
//
// # Names
//
// A running agent is an [Agent]: its handle, which owns its inbox, its
// workers' count and its outcome. Its cell is its actor. What else holds
// one sees only what it needs of it: the agents beside it in a chain reach
// it through Feed, PullVia, Relay and WhenDone and the messages [Send]
// hands it (a core.Member holds it so), a relay as relayed, the runtime's
// Shutdown as a bridge.Agent.
package cell
