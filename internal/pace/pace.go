// Package pace is what a pacer and the agent after it in a chain say to
// each other, so that the chain's work starts at the pacer's pace. A pacer
// is an agent that keeps the pace of a chain, as a rate agent does; the
// agent after it, a parallel or adaptive agent, starts work on what it
// lets through and on retries.
//
// It is carried by the contract's extension points: messages to an agent
// are [agent.Event] values of [Reservation], [Pass] or [Paced], and
// effects are [agent.Send] values of [Reserve], [Room], [Grant] or [Drained],
// which the runtime (and the simulator) perform themselves. An agent
// declares that it takes part with the machinery's Spec (Paces, Reserves);
// nothing outside this module can, so none of it is API.
//
// # The pace is kept where the work starts
//
// A pacer spends a token on each item as it lets it through. Were the
// item then to wait in the next agent's queue (behind a retry holding up
// the output, a slow item, a full window), the bucket would refill
// meanwhile, and the waiting items would start at once with the ones the
// refill lets through: more than the bucket allows. So the agent after a
// pacer takes items only as it can start them: its demand to the pacer is
// not its queue's free slots but the room it opens, with Room, as places
// and downstream demand free up (a batch a free place, within its queue's
// bound). An item that comes finds its place and starts as it comes. One
// that cannot, because the room opened for a batch went to smaller ones
// or the limit fell meanwhile, waits as a retry does, for a pass: its
// token is lost, never spent twice on one start. An attempt that no new
// item brings, a retry, reserves a pass with Reserve and starts as the
// pass comes, or not at all: a pass it cannot use at once is dropped. The
// pacer grants the passes owed ahead of its items, a token a pass, with
// Grant; with no pacer before it, the runtime grants them at once. Either
// way they arrive as a Pass. So every start of work took a token at its
// own instant, and the starts in any window of length t number at most
// burst + rate·t, whatever stalls after the pacer.
//
// The exchange: the runtime sends a pacer a first Reservation, of N 0, as
// it starts, when the agent after it reserves passes; the pacer then
// starts with no demand. Once that agent can reach the pacer, the runtime
// sends it a Paced, from which on it opens room; the runtime hands the
// room to the pacer as demand (an agent.Pull), gathered once a round, and
// the input slots that agent gives back (agent.Demand) count only for its
// own metrics. Room a conversion between the two dropped goes back to the
// pacer as demand, as demand does; an agent after it that breaks gives it
// unbounded demand, so that it drains. A pacer whose input was closed and
// which has passed on its last item does not finish but says Drained (the
// runtime then closes the agent after it, as it would on the pacer's
// Finish) and keeps granting, until a Reservation with Last says that the
// agent after it has ended.
//
// Why room, and not a token spent as each item starts: that would take a
// message each way for every start, and an item's cost, which only the
// pacer knows, would have to travel with it. Room is the pacer's demand,
// so it costs no message more than demand did, and the pacer does not
// change: it lets through what it has demand and tokens for. Every queue
// keeps its bound, nothing is lost at the drain, and a chain without a
// pacer pays nothing: its agents never hear Paced, open no room, and their
// retries' passes come at once.
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

// Reserve asks for N passes, for attempts that no new item brings.
type Reserve struct {
	N int
}

// Room gives the pacer before the agent demand for N more items, which
// the agent can start as they come.
type Room struct {
	N int
}

// Paced tells the agent after a pacer, once, as the chain starts, that
// the pacer takes its demand from the room the agent opens.
type Paced struct{}

// Grant hands the agent after the pacer N of the passes it reserved.
type Grant struct {
	N int
}

// Drained says that a pacer whose input was closed has passed on its last
// item but has not finished, because the agent after it may still reserve
// passes.
type Drained struct{}

// In returns v as the message that brings it to an agent.
func In[V Reservation | Pass | Paced](v V) agent.Msg { return agent.Event[V]{Value: v} }

// Out returns v as the effect that asks for it.
func Out[V Reserve | Room | Grant | Drained](v V) agent.Effect { return agent.Send[V]{Value: v} }
