package chain

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/evolvekit/evolve/internal/core"
	"github.com/evolvekit/evolve/internal/record"
	"github.com/rs/zerolog"
)

// Chain is a running chain: its agents, first to last, and what [Start]
// put around them. It is safe for concurrent use.
type Chain[I any] struct {
	name    string
	log     zerolog.Logger // the runtime's, with the chain's name
	head    *core.Member[I]
	members []core.Runner
	bound   int
	left    atomic.Int64  // members (and the recorder) not yet done
	done    chan struct{} // closed once every member is done
	workers *workers      // shares the workers of Options.Workers; nil without

	rec       *record.Recorder // where the chain records; nil when it does not
	recFailed error            // what the recording's error is wrapped in
}

// newChain returns the chain that runs the members of run, named name,
// their input bounds adding up to bound.
func newChain[I any](name string, log zerolog.Logger, run core.Run[I], bound int) *Chain[I] {
	c := &Chain[I]{
		name:    name,
		log:     log.With().Str("chain", name).Logger(),
		head:    run.Head,
		members: run.Members,
		bound:   bound,
		done:    make(chan struct{}),
	}
	c.left.Store(int64(len(c.members)))
	return c
}

// count has every member counted done as it ends.
func (c *Chain[I]) count() {
	for _, m := range c.members {
		m.WhenDone(c.memberDone)
	}
}

// memberDone counts a member done, and closes done after the last.
func (c *Chain[I]) memberDone() {
	if c.left.Add(-1) == 0 {
		close(c.done)
	}
}

// Name returns the chain's name.
func (c *Chain[I]) Name() string { return c.name }

// Bound returns the sum of the input bounds of the chain's agents.
func (c *Chain[I]) Bound() int { return c.bound }

// Log returns the chain's logger: the runtime's, with the chain's name.
func (c *Chain[I]) Log() *zerolog.Logger { return &c.log }

// Post hands v to the chain's first agent, blocking while it is full; it
// returns ctx.Err() if ctx ends first.
func (c *Chain[I]) Post(ctx context.Context, v I) error { return c.head.Post(ctx, v) }

// TryPost hands v to the chain's first agent if it has room, and returns
// agent.ErrFull if not.
func (c *Chain[I]) TryPost(v I) error { return c.head.TryPost(v) }

// Close ends the chain's input. Each agent drains what it holds and then
// closes the next.
func (c *Chain[I]) Close() { c.head.Close() }

// Done returns a channel closed once every agent is done (and the chain's
// recording is written, if it records).
func (c *Chain[I]) Done() <-chan struct{} { return c.done }

// Wait waits for every agent, the recording and the sharing of the
// workers, and joins the errors of the agents that failed, each prefixed
// with its name, and that of the recording.
func (c *Chain[I]) Wait(ctx context.Context) error {
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
	// Each agent's end is counted by a callback that may run a moment
	// after its Wait returned: Done must be closed once Wait has
	// returned.
	select {
	case <-c.done:
	case <-ctx.Done():
		return ctx.Err()
	}
	return errors.Join(errs...)
}

// named prefixes an agent's error with the agent's name, so that the
// joined error says which failed; an error that begins with the name
// already, as an agent.DeadLettersError does, is not named twice.
func named(name string, err error) error {
	if strings.HasPrefix(err.Error(), name+": ") {
		return err
	}
	return fmt.Errorf("%s: %w", name, err)
}

// Stop stops every agent at once, and waits for the goroutines they own,
// the recording's and the one that shares the workers.
func (c *Chain[I]) Stop(ctx context.Context) error {
	c.workers.halt()
	if err := core.StopAll(ctx, c.members); err != nil {
		return err
	}
	if err := c.awaitRecording(ctx); err != nil {
		return err
	}
	return c.workers.wait(ctx)
}
