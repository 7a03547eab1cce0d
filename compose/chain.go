package compose

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/internal/bridge"
	"github.com/evolvekit/evolve/internal/core"
	"github.com/evolvekit/evolve/internal/record"
	"github.com/rs/zerolog"
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
	if err := o.check(rt, st.Zero()); err != nil {
		return nil, err
	}
	if o.overflow == DropOldest {
		st = core.Link(gateStage[I](st.First()), st)
	}
	shared, sharing, err := o.checkWorkers(st.Plan)
	if err != nil {
		return nil, err
	}
	rec, recording := startRecorder(o, rt, st)
	run, err := st.Start(rt, core.Inlet{DeadLetters: o.dead, Record: recording}, core.SinkOutlet(sink))
	if err != nil {
		abandon(rec)
		return nil, fmt.Errorf("compose: starting %s: %w", o.name, err)
	}
	c := &chain[I]{
		name:     o.name,
		log:      bridge.Runtime(rt).Log.With().Str("chain", o.name).Logger(),
		head:     run.Head,
		members:  run.Members,
		overflow: o.overflow,
		bound:    st.Bound(),
		done:     make(chan struct{}),
	}
	c.left.Store(int64(len(c.members)))
	c.seal(rec)
	for _, m := range c.members {
		m.WhenDone(c.memberDone)
	}
	if o.shared {
		c.workers = startWorkers(o, bridge.Runtime(rt), c.log, c.members, shared, sharing, c.done)
	}
	return c, nil
}

// check reports what makes o, rt or the stage unusable.
func (o options) check(rt *agent.Runtime, zero bool) error {
	switch {
	case rt == nil:
		return invalid("runtime must not be nil")
	case zero:
		return invalid("the zero Stage cannot start; make one with an agent package's Stage, link them with Pipe2")
	case o.overflow < Block || o.overflow > Fail:
		return invalid("overflow must be Block, DropNewest, DropOldest or Fail, got %v", o.overflow)
	}
	return nil
}

// chain is a running chain: the agent.Handle that Start returns.
type chain[I any] struct {
	name     string
	log      zerolog.Logger
	head     *core.Member[I]
	members  []core.Runner
	overflow Overflow
	bound    int
	dropped  atomic.Int64
	left     atomic.Int64  // members (and the recorder) not yet done
	done     chan struct{} // closed once every member is done
	workers  *workers      // shares WithWorkers' workers; nil without

	rec *record.Recorder // where the chain records; nil when it does not
}

// Name returns the chain's name.
func (c *chain[I]) Name() string { return c.name }

// Post hands v to the chain's first stage. When that stage is full it
// blocks (returning ctx.Err() if ctx ends first), drops v, drops the oldest
// item waiting, or returns agent.ErrFull, as the chain's [Overflow] policy
// says.
func (c *chain[I]) Post(ctx context.Context, v I) error {
	switch c.overflow {
	case DropNewest:
		err := c.head.TryPost(v)
		if errors.Is(err, agent.ErrFull) {
			c.dropped.Add(1)
			return nil
		}
		return err
	case Fail:
		return c.head.TryPost(v)
	}
	return c.head.Post(ctx, v)
}

// TryPost hands v to the chain's first stage if it has room, whatever the
// chain's Overflow policy.
func (c *chain[I]) TryPost(v I) error { return c.head.TryPost(v) }

// Close ends the chain's input. Each stage drains what it holds and then
// closes the next.
func (c *chain[I]) Close() { c.head.Close() }

// Wait waits for every stage, and joins the errors of those that failed.
func (c *chain[I]) Wait(ctx context.Context) error {
	var errs []error
	for _, m := range c.members {
		err := m.Wait(ctx)
		if cerr := ctx.Err(); cerr != nil {
			return cerr
		}
		if err != nil {
			errs = append(errs, named(m.Name(), err))
		}
	}
	if err := c.awaitRecording(ctx); err != nil {
		return err
	}
	errs = append(errs, c.recordingErr())
	if err := c.workers.wait(ctx); err != nil {
		return err
	}
	// Each stage's end is counted by a callback that may run a moment
	// after its Wait returned: Done must be closed once Wait has
	// returned.
	select {
	case <-c.done:
	case <-ctx.Done():
		return ctx.Err()
	}
	return errors.Join(errs...)
}

// named prefixes a stage's error with the stage's name, so that the joined
// error says which stage failed; an error that begins with the name
// already, as an agent.DeadLettersError does, is not named twice.
func named(name string, err error) error {
	if strings.HasPrefix(err.Error(), name+": ") {
		return err
	}
	return fmt.Errorf("%s: %w", name, err)
}

// Done returns a channel closed once every stage is done (and the chain's
// recording is written, if it records).
func (c *chain[I]) Done() <-chan struct{} { return c.done }

// memberDone counts a stage done, and closes done after the last.
func (c *chain[I]) memberDone() {
	if c.left.Add(-1) == 0 {
		close(c.done)
	}
}

// Stop stops every stage at once, and waits for the goroutines they own.
func (c *chain[I]) Stop(ctx context.Context) error {
	c.workers.halt()
	if err := core.StopAll(ctx, c.members); err != nil {
		return err
	}
	if err := c.awaitRecording(ctx); err != nil {
		return err
	}
	return c.workers.wait(ctx)
}
