package compose

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/evolvekit/evolve/agent"
	"github.com/rs/zerolog"
)

// Chain is a running chain of agents that takes items of type I: Post them,
// Close it, Wait for the sink to have seen everything. A Chain is safe for
// concurrent use; its zero value is not usable, [Start] makes one.
type Chain[I any] struct {
	name     string
	log      zerolog.Logger
	head     *agent.Member[I]
	members  []member
	overflow Overflow
	bound    int
	dropped  atomic.Int64
}

// Start runs the agents of plan on rt, linked, with the values of the last
// stage going to sink one at a time on that stage's goroutine (a slow sink
// slows the chain; a nil sink discards the values; a panic in sink loses that
// value and becomes the last stage's error). It returns an error when rt is
// nil, plan is the zero Plan, an option is out of range, or a stage cannot
// start.
func Start[I, O any](rt *agent.Runtime, plan Plan[I, O], sink func(O), opts ...Option) (*Chain[I], error) {
	o := options{name: "chain"}
	for _, opt := range opts {
		opt(&o)
	}
	if err := o.check(rt, plan.start != nil); err != nil {
		return nil, err
	}
	if o.overflow == DropOldest {
		plan = behind(gateStage[I](plan.first), plan)
	}
	st, err := plan.start(rt, agent.Inlet{}, agent.SinkOutlet(sink))
	if err != nil {
		return nil, fmt.Errorf("compose: starting %s: %w", o.name, err)
	}
	return &Chain[I]{name: o.name, log: rt.Logger(), head: st.head, members: st.members, overflow: o.overflow, bound: plan.bound}, nil
}

// check reports what makes o, rt or the plan unusable.
func (o options) check(rt *agent.Runtime, plan bool) error {
	switch {
	case rt == nil:
		return errors.New("compose: runtime must not be nil")
	case !plan:
		return errors.New("compose: the zero Plan has no stages; build one with From and Then")
	case o.overflow < Block || o.overflow > Fail:
		return fmt.Errorf("compose: overflow must be Block, DropNewest, DropOldest or Fail, got %v", o.overflow)
	}
	return nil
}

// Name returns the chain's name.
func (c *Chain[I]) Name() string { return c.name }

// Post hands v to the chain's first stage. When that stage is full it
// blocks (returning ctx.Err() if ctx ends first), drops v, drops the oldest
// item waiting, or returns agent.ErrFull, as the chain's [Overflow] policy
// says. It returns agent.ErrClosed after Close or Stop, and whatever the
// first stage refuses v with (rate.ErrCost, say). Once Post returns nil, v
// is the chain's: it reaches the sink exactly once, unless a policy drops
// it or a stage fails on it.
func (c *Chain[I]) Post(ctx context.Context, v I) error {
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

// TryPost hands v to the chain's first stage if it has room, and returns
// agent.ErrFull if not, whatever the chain's Overflow policy. It never
// blocks.
func (c *Chain[I]) TryPost(v I) error { return c.head.TryPost(v) }

// Close ends the chain's input. Each stage drains what it holds and then
// closes the next. Close does not wait; Wait does.
func (c *Chain[I]) Close() { c.head.Close() }

// Wait blocks until every stage has finished after Close, the sink having
// seen every value, and returns the errors of the stages that failed, each
// prefixed with the stage's name and joined with errors.Join; or ctx.Err()
// if ctx ends first. Wait does not poll.
func (c *Chain[I]) Wait(ctx context.Context) error {
	var errs []error
	for _, m := range c.members {
		err := m.Wait(ctx)
		if cerr := ctx.Err(); cerr != nil {
			return cerr
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", m.Name(), err))
		}
	}
	return errors.Join(errs...)
}

// Stop ends every stage now, first to last, dropping what they hold and
// cancelling running work, and waits for the goroutines they own. For a
// graceful end, Close and Wait first.
func (c *Chain[I]) Stop(ctx context.Context) error {
	var errs []error
	for _, m := range c.members {
		errs = append(errs, m.Stop(ctx))
	}
	return errors.Join(errs...)
}
