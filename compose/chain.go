package compose

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/internal/chain"
	"github.com/evolvekit/evolve/internal/core"
)

// Start runs the agents of s on rt, linked, with the values of its last
// stage going to sink one at a time, each call over before the next begins,
// in that stage's rounds (a slow sink slows the chain; a nil sink discards the values; a panic in sink loses
// that value and becomes the last stage's error). It returns the chain's
// handle; the chain's Wait returns the errors of every failed stage, each
// prefixed with its name, joined.
//
// It returns an [ErrConfig] when rt is nil, s is the zero Stage or an
// option is out of range, and agent.ErrClosed once rt has shut down.
func Start[I, O any](rt *agent.Runtime, s agent.Stage[I, O], sink func(O), opts ...Option) (agent.Handle[I, Status], error) {
	o := options{name: "chain"}
	for _, opt := range opts {
		opt(&o)
	}
	st := core.Unwrap(s)
	if err := o.check(rt, st.Zero(), st.Plan); err != nil {
		return nil, err
	}
	c, err := chain.Start(rt, st, o.assembly(), sink)
	if err != nil {
		return nil, fmt.Errorf("compose: starting %s: %w", o.name, err)
	}
	return &handle[I]{c: c, overflow: o.overflow}, nil
}

// check reports what makes o, rt or the stage unusable; plan describes
// the stage, for the workers it may share.
func (o options) check(rt *agent.Runtime, zero bool, plan func() core.Plan) error {
	switch {
	case rt == nil:
		return invalid("runtime must not be nil")
	case zero:
		return invalid("the zero Stage cannot start; make one with an agent package's Stage, link them with Pipe2")
	case o.overflow < Block || o.overflow > Fail:
		return invalid("overflow must be Block, DropNewest, DropOldest or Fail, got %v", o.overflow)
	}
	return o.checkWorkers(plan)
}

// assembly returns what o asks of the chain's assembly.
func (o options) assembly() chain.Options {
	return chain.Options{Name: o.name, Gate: o.overflow == DropOldest, DeadLetters: o.dead,
		Record: o.record, RecordFailed: ErrRecording, Workers: o.workers, Period: o.period}
}

// handle is a running chain: the agent.Handle that Start returns. What
// Post does when the chain is full is its own; the rest is the chain's.
type handle[I any] struct {
	c        *chain.Chain[I]
	overflow Overflow
	dropped  atomic.Int64 // items DropNewest dropped
}

// Name returns the chain's name.
func (h *handle[I]) Name() string { return h.c.Name() }

// Post hands v to the chain's first stage. When that stage is full it
// blocks (returning ctx.Err() if ctx ends first), drops v, drops the oldest
// item waiting, or returns agent.ErrFull, as the chain's [Overflow] policy
// says.
func (h *handle[I]) Post(ctx context.Context, v I) error {
	switch h.overflow {
	case DropNewest:
		err := h.c.TryPost(v)
		if errors.Is(err, agent.ErrFull) {
			h.dropped.Add(1)
			return nil
		}
		return err
	case Fail:
		return h.c.TryPost(v)
	}
	return h.c.Post(ctx, v)
}

// TryPost hands v to the chain's first stage if it has room, whatever the
// chain's Overflow policy.
func (h *handle[I]) TryPost(v I) error { return h.c.TryPost(v) }

// Close ends the chain's input. Each stage drains what it holds and then
// closes the next.
func (h *handle[I]) Close() { h.c.Close() }

// Wait waits for every stage, and joins the errors of those that failed.
func (h *handle[I]) Wait(ctx context.Context) error { return h.c.Wait(ctx) }

// Done returns a channel closed once every stage is done (and the chain's
// recording is written, if it records).
func (h *handle[I]) Done() <-chan struct{} { return h.c.Done() }

// Stop stops every stage at once, and waits for the goroutines they own.
func (h *handle[I]) Stop(ctx context.Context) error { return h.c.Stop(ctx) }
