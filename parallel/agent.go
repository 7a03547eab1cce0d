package parallel

import (
	"context"

	"github.com/evolvekit/evolve/agent"
)

// Work is what a parallel agent runs for each item, in a goroutine the
// runtime owns. ctx is cancelled when the agent is stopped (by
// [agent.Handle.Stop] or [agent.Runtime.Shutdown]); work should return soon
// after. An error or a panic makes a failed [Result].
type Work[In, Out any] func(ctx context.Context, in In) (Out, error)

// Agent is a running parallel agent: it takes items of type In, runs its
// [Work] on at most Limit of them at once, and hands each [Result] to its
// sink, in input order unless its Config says Unordered.
//
// Everything an [agent.Handle] offers is here: Post blocks while the input
// queue is full (TryPost reports agent.ErrFull instead), Close ends the
// input, Wait returns once every accepted item has been finished and emitted
// (with the first failure, like errgroup's Wait), Status returns a [Status],
// Stop cancels running work. An Agent is safe for concurrent use.
type Agent[In, Out any] struct {
	*agent.Handle[In, Status]
}

// New starts a parallel agent on rt that runs work on each item posted and
// hands the results to sink, one at a time, on the agent's own goroutine (a
// slow sink slows the agent; nil discards results). It returns an error
// naming the setting when cfg is out of range or work or rt is nil
// (errors.Is(err, ErrConfig)), and agent.ErrClosed when rt has been shut
// down.
func New[In, Out any](rt *agent.Runtime, cfg Config, work Work[In, Out], sink func(Result[Out])) (*Agent[In, Out], error) {
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
func spec[In, Out any](cfg Config, work Work[In, Out]) (agent.Spec[State[In, Out], In, Batch[In], []Result[Out], Result[Out], Status], error) {
	s, err := NewState[In, Out](cfg)
	if err != nil {
		return agent.Spec[State[In, Out], In, Batch[In], []Result[Out], Result[Out], Status]{}, err
	}
	if work == nil {
		return agent.Spec[State[In, Out], In, Batch[In], []Result[Out], Result[Out], Status]{}, invalid("work must not be nil")
	}
	return agent.Spec[State[In, Out], In, Batch[In], []Result[Out], Result[Out], Status]{
		Name:   cfg.name(),
		State:  s,
		Evolve: Evolve[In, Out],
		Queue:  cfg.queue(),
		Run:    work.Run,
	}, nil
}

// SetLimit changes the agent's limit while it runs. Raising it starts waiting
// items at once; lowering it lets running work finish and starts nothing new
// until fewer than n are in flight. It returns an error for n below 1
// (errors.Is(err, ErrConfig)) and agent.ErrClosed once the agent has
// stopped. It does not wait for the change to take effect; a Status call made
// afterwards sees it.
func (a *Agent[In, Out]) SetLimit(n int) error {
	if err := checkLimit(n); err != nil {
		return err
	}
	return agent.Adjust(a.Handle, Limit(n))
}
