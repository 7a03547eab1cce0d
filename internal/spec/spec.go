// Package spec holds what an agent package declares of its agent to the
// machinery: its [Spec] (state, evolve, work, queue, and what it shares,
// measures and takes) and the [Port] its Open connects it to. It knows no
// driver: package cell runs a Spec on the runtime, and package core's
// Plan steps one by hand, each through [Spec.Initial] and [Spec.Apply].
// Which of a Spec's ways to step an agent a new agent needs is said once,
// in package core's doc.
package spec

import (
	"context"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/internal/budget"
	"github.com/evolvekit/evolve/internal/meter"
	"github.com/evolvekit/evolve/internal/trace"
	"github.com/rs/zerolog"
)

// Spec describes an agent: its initial state, its evolve function, the
// bound of its input queue and the work its Start effects run. The types
// are the state S, the work W that Start carries, the result R that work
// returns (delivered in Done) and the values O that Emit carries.
type Spec[S, W, R, O any] struct {
	// Name names the agent in logs and errors.
	Name string
	// State is the agent's initial state. A state that Evolve updates in
	// place has a method Clone() S, and each run of the agent starts from
	// a Clone of it, so that two runs of one Stage share nothing. A state
	// that Evolve may update in place when nothing else holds it has a
	// method Owned() S, and each run starts from what that returns.
	State S
	// Evolve is the agent's behaviour.
	Evolve agent.Evolve[S]
	// Step, when not nil, is Evolve on a state it changes in place: the
	// runtime and a Plan's machines call it rather than Evolve, and so
	// copy no state in and out of each step. It must do to *s what Evolve
	// does to its own copy, and return the same effects. It may append
	// them to fx, which has no length: the runtime hands it the slice of
	// the step before, once done with it, to save an allocation. A Step
	// that panics may leave *s half changed; the agent has failed then,
	// and only its status is read from it.
	Step func(s *S, m agent.Msg, fx []agent.Effect) []agent.Effect
	// StepDone, when not nil, is Step for a Done, which the runtime hands
	// it by pointer rather than boxed in an agent.Msg: a Done is the
	// message an agent with work takes most, one per Start, and boxing it
	// costs an allocation. It must do what Step does with *d. The runtime
	// does not call it for an agent that records its steps.
	StepDone func(s *S, d *agent.Done[R], fx []agent.Effect) []agent.Effect
	// StepInput, when not nil, is a func(s *S, in *agent.Input[I], fx
	// []agent.Effect) []agent.Effect for the agent's item type I: Step for
	// an Input, which a Plan's machines hand it by pointer rather than
	// boxed in an agent.Msg, as they hand a Done to StepDone (the
	// simulator delivers an Input a hop, one box each). It must do what
	// Step does with *in. A func of another item type is not called. The
	// runtime boxes the one Input of a round and steps it.
	StepInput any
	// StepDones, when not nil, is StepDone for the Dones of one round, ds,
	// all at once: it does with each Done, in turn, what StepDone does,
	// but may do once, after the last, what StepDone does after each (emit
	// what may go out, start what may start). So the effects may come
	// grouped otherwise than StepDone's would: the same values emitted in
	// the same order, but work started in batches shared over all the
	// places the Dones freed, and, where a bound of the state is heeded
	// once the round is in rather than between its Dones, perhaps a round
	// later. An agent with thousands of Starts in
	// flight takes in tens of Dones a round, and so pays for that once.
	// The runtime calls it, rather than StepDone, for the results a round
	// takes in, when there are two or more and the agent records nothing;
	// a Plan's machines step each Done alone.
	StepDones func(s *S, ds []agent.Done[R], fx []agent.Effect) []agent.Effect
	// Queue bounds the items accepted but not yet taken up (given back
	// with Demand); at least 1.
	Queue int
	// Key, when not nil, is a func(I) string, for the agent's item type
	// I, that names each item's key, and KeyQueue bounds the items of one
	// key that Post lets wait, within Queue: evolve names the keys of the
	// slots it gives back with an agent.Send[fair.Freed] before the
	// Demand. A KeyQueue of Queue or more bounds nothing, and Post counts
	// no key's items.
	Key      any
	KeyQueue int
	// Follow says how the runtime's traces follow items through the
	// agent's work and values; its zero value, one for one in order.
	Follow trace.Follow[W, O]
	// Work performs one Start's work; id is the Start's ID. It is nil for
	// an agent that starts none. A panic in it becomes a *PanicError.
	Work func(ctx context.Context, id uint64, w W) (R, error)
	// Inline says Work returns at once and never blocks: the runtime
	// runs it on the agent's goroutine as the Start is performed, with no
	// worker to hand it to, and evolve takes its Done once the messages of
	// the round that started it are taken in, at the round's instant (or
	// in the next round, for work started outside one).
	Inline bool
	// Recovers says Work turns every panic in it into its error itself:
	// the runtime then calls it on a worker with no recover of its own.
	Recovers bool
	// Recycle, when not nil, takes back the result of each Done once the
	// round that handed it to evolve has ended and delivered what it
	// emitted, and returns it emptied, for the work of a later Start to
	// reuse: for an agent whose evolve keeps no result in its state, and
	// emits none but in that round. It is called on the agent's goroutine,
	// and not at all for an agent that records its steps, whose tape may
	// hold the results. The runtime keeps what it returns (up to a bound of
	// its own) and hands one to each Start's work, through Reuse.
	Recycle func(r R) R
	// Reuse, when not nil, is Work given spare: a result Recycle emptied,
	// which it may fill rather than make one, or the zero R when none is
	// kept. The runtime's workers call it rather than Work. A spare rides
	// with its Start to the worker, so that no two workers share a pool.
	Reuse func(ctx context.Context, id uint64, w W, spare R) (R, error)
	// Open, when not nil, connects the agent to something outside the
	// runtime, such as the workers of a remote stage. It is called once,
	// before the agent's actor starts, with post, which hands the agent a
	// message (an agent.Event) and reports false once the agent has ended,
	// with the agent's logger, for what it has to say outside its evolve,
	// and with the line of its items' spans (nil when the runtime traces
	// nothing), for a port that carries their contexts out of the process.
	// Open returns the Port that performs the agent's agent.Send effects.
	Open func(post func(agent.Msg) bool, log zerolog.Logger, spans *trace.Line) (Port, error)
	// DeadLetters, when not nil, takes the agent.DeadLetter effects of
	// the agent: its own sink, ahead of that of the chain it runs in.
	DeadLetters func(agent.DeadLetter)
	// Paces says the agent keeps a pace: its evolve takes the
	// pace.Reservation events and answers with pace.Grant and pace.Drained
	// (see package pace). In a chain, an agent after it that Reserves
	// spends its pace.
	Paces bool
	// Reserves says the agent may ask for pace.Reserve, for passes at the
	// pace of the agent before it in a chain, if that one Paces.
	Reserves bool
	// Measure, when not nil, reads what the agent's status (a Reply's
	// value) says beyond its agent.Load that its metrics show: its limit,
	// tokens, retries, drops.
	Measure func(status any) meter.Extra
	// Share, when not nil, says the agent shares the workers of a chain's
	// budget, and how: what its status tells the budget and the message
	// that sets its limit. A driver of a budget asks it through the Plan.
	Share *budget.Share
	// Takes holds a zero value of each agent.Set and agent.Event message
	// the agent's evolve takes: their payload types are the agent's own,
	// which its other types do not say. A replay reads recorded messages
	// back into them (see Machine.Messages).
	Takes []agent.Msg
}

// Initial returns the state one run of the agent starts from. A state
// with a method Owned() S is run as what it returns: a state that evolve
// may update in place, since a driver keeps nothing but the newest.
func (s Spec[S, W, R, O]) Initial() S {
	st := s.State
	if c, ok := any(st).(interface{ Clone() S }); ok {
		st = c.Clone()
	}
	if o, ok := any(st).(interface{ Owned() S }); ok {
		st = o.Owned()
	}
	return st
}

// Apply runs the agent's behaviour on *st and m: Step, which may append
// to fx, or else Evolve.
func (s *Spec[S, W, R, O]) Apply(st *S, m agent.Msg, fx []agent.Effect) []agent.Effect {
	if s.Step != nil {
		return s.Step(st, m, fx)
	}
	*st, fx = s.Evolve(*st, m)
	return fx
}

// Port is what an agent's Open connected it to.
type Port struct {
	// Send performs one effect evolve returned that the runtime does not
	// know: an agent.Send of the port's own type. It is called on the
	// agent's goroutine and must not block; it reports false for an effect
	// it does not take, which breaks the agent.
	Send func(agent.Effect) bool
	// Close is called once, when the agent's actor stops, before Wait
	// returns; it lets go of whatever Open set up.
	Close func()
	// Spent, when not nil, takes back each message the agent's evolve
	// took, once the step that took it is over and its effects performed:
	// for a port whose events carry memory it may reuse, since evolve keeps
	// no part of a message (see agent.Evolve). It is called on the agent's
	// goroutine, for every message, and not at all for an agent that
	// records its steps, whose tape may hold them.
	Spent func(agent.Msg)
}
