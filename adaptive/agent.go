package adaptive

import (
	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/parallel"
)

// Agent is a running adaptive agent: a parallel agent whose limit its
// [Controller] chooses as work completes. It takes items of type In, runs
// its work on at most the current limit of them at once, and hands each
// parallel.Result to its sink, in input order unless its Config says
// Unordered.
//
// Everything an [agent.Handle] offers is here: Post blocks while the input
// queue is full (TryPost reports agent.ErrFull instead), Close ends the
// input, Wait returns once every accepted item has been finished and emitted
// (with the first failure), Status returns a [Status] with the limit and the
// controller's view, Stop cancels running work. An Agent is safe for
// concurrent use.
type Agent[In, Out any] struct {
	*agent.Handle[In, Status]
}

// New starts an adaptive agent on rt that runs work on each item posted and
// hands the results to sink, one at a time, on the agent's own goroutine (a
// slow sink slows the agent; nil discards results). It returns an error
// naming the setting when cfg is out of range or work or rt is nil
// (errors.Is(err, ErrConfig)), and agent.ErrClosed when rt has been shut
// down.
func New[In, Out any](rt *agent.Runtime, cfg Config, work parallel.Work[In, Out], sink func(parallel.Result[Out])) (*Agent[In, Out], error) {
	if rt == nil {
		return nil, invalid("runtime must not be nil")
	}
	sp, err := spec(cfg, work)
	if err != nil {
		return nil, err
	}
	sp.Sink = sink
	h, err := agent.Spawn(rt, sp)
	if err != nil {
		return nil, err
	}
	return &Agent[In, Out]{Handle: h}, nil
}

// spec describes the agent cfg and work make, with no sink.
func spec[In, Out any](cfg Config, work parallel.Work[In, Out]) (agent.Spec[State[In, Out], In, parallel.Batch[In], []parallel.Result[Out], parallel.Result[Out], Status], error) {
	s, err := NewState[In, Out](cfg)
	if err != nil {
		return agent.Spec[State[In, Out], In, parallel.Batch[In], []parallel.Result[Out], parallel.Result[Out], Status]{}, err
	}
	if work == nil {
		return agent.Spec[State[In, Out], In, parallel.Batch[In], []parallel.Result[Out], parallel.Result[Out], Status]{}, invalid("work must not be nil")
	}
	return agent.Spec[State[In, Out], In, parallel.Batch[In], []parallel.Result[Out], parallel.Result[Out], Status]{
		Name:   cfg.name(),
		State:  s,
		Evolve: Evolve[In, Out],
		Queue:  cfg.queue(),
		Run:    work.Run,
	}, nil
}

// SetLimit sets the agent's limit by hand while it runs, brought within the
// agent's Min and Max; the controller carries on from there. Raising it
// starts waiting items at once; lowering it lets running work finish. It
// returns an error for n below 1 (errors.Is(err, ErrConfig)) and
// agent.ErrClosed once the agent has stopped. It does not wait for the
// change to take effect; a Status call made afterwards sees it.
func (a *Agent[In, Out]) SetLimit(n int) error {
	if n < 1 {
		return invalid("limit must be at least 1, got %d", n)
	}
	return agent.Adjust(a.Handle, Limit(n))
}
