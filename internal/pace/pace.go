// Package pace is what a pacer and the agent after it in a chain say to
// each other, so that the attempts no new item brings (retries) keep the
// chain's pace. A pacer is an agent that keeps the pace of a chain, as a
// rate agent does; the agent after it reserves passes of that pace, as a
// parallel or adaptive agent does for its retries.
//
// It is carried by the contract's extension points: messages to an agent
// are [agent.Event] values of [Reservation] or [Pass], and effects are
// [agent.Send] values of [Reserve], [Grant] or [Drained], which the
// runtime (and the simulator) perform themselves. An agent declares that it
// takes part with the machinery's Spec (Paces, Reserves); nothing outside
// this module can, so none of it is API.
//
// The exchange: an agent that retries asks for passes with Reserve. When
// the agent before it in a chain paces it, the runtime hands the
// reservation to that pacer as a Reservation, and the pacer grants the
// passes as its bucket allows, ahead of its items, with Grant; otherwise
// the runtime grants them at once. Either way they arrive as a Pass. The
// runtime sends a pacer a first Reservation, of N 0, as it starts, when the
// agent after it may reserve passes: from then on the pacer does not finish
// when drained, but says Drained (the runtime then closes the agent after
// it, as it would on the pacer's Finish) and keeps granting, until a
// Reservation with Last says that the agent after it has ended.
package pace

import "github.com/evolvekit/evolve/agent"

// Reservation brings a pacer N more passes the agent after it reserved;
// Last says instead that the agent after it has ended.
type Reservation struct {
	N    int
	Last bool
}

// Pass brings the agent N passes it reserved: leave to start N attempts
// now, at the pace of the chain.
type Pass struct {
	N int
}

// Reserve asks for N passes, for attempts that no new item brought.
type Reserve struct {
	N int
}

// Grant hands the agent after the pacer N of the passes it reserved.
type Grant struct {
	N int
}

// Drained says that a pacer whose input was closed has passed on its last
// item but has not finished, because the agent after it may still reserve
// passes.
type Drained struct{}

// In returns v as the message that brings it to an agent.
func In[V Reservation | Pass](v V) agent.Msg { return agent.Event[V]{Value: v} }

// Out returns v as the effect that asks for it.
func Out[V Reserve | Grant | Drained](v V) agent.Effect { return agent.Send[V]{Value: v} }
