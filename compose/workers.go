package compose

import (
	"time"

	"github.com/evolvekit/evolve/internal/budget"
	"github.com/evolvekit/evolve/internal/core"
)

// DefaultWorkersPeriod is how often a chain started [WithWorkers]
// reallocates its workers, unless [WithWorkersPeriod] says otherwise.
const DefaultWorkersPeriod = budget.DefaultPeriod

// WithWorkers makes the chain's stages that share workers share n of them,
// so that the workers follow the bottleneck. The stages of this module
// that share workers are the parallel and adaptive ones; an agent of one's
// own shares them when its spawn.Spec says how (its Workers and Limit). At
// the start the workers are split evenly, and each stage's limit is set to
// its share, whatever its Limit setting. Then, every [DefaultWorkersPeriod] (see
// [WithWorkersPeriod]), the chain asks each of those stages for its status,
// once, and shares the workers again by the highest-averages rule
// (Jefferson, D'Hondt): each stage keeps one worker of its own, and the
// others go, one at a time, to the stage with the highest queue length ×
// mean service time / (w + 1), w counting the workers it has beyond its
// own: to the stage that would take longest to work through its queue.
// Ties go to the stage with fewer workers, then to the earlier one.
//
// The queue length is the stage's Queued. A stage behind a rate stage
// takes items only as it can start them, so its backlog waits in the rate
// stage's queue: its queue length counts, besides its own Queued, the
// items the rate stage holds beyond the room the stage has open (the rate
// stage's Demand), up to the stage's Queue bound. The service time, the time one
// worker spends on one item, is read from the stage's counters by Little's
// law: the workers busy (a parallel or adaptive stage's Batches, the mean
// of two statuses) times the period, divided by the items done in it; it
// is smoothed over the periods. A parallel stage's limit is its share;
// lowering it lets the work in flight finish. An adaptive stage's limit is
// set to its share, within its Min and Max, and its controller carries on
// from there until the next period, so the workers of a chain with
// adaptive stages are a target rather than a bound.
//
// Start returns an [ErrConfig] when n is below the number of stages that
// share workers (each keeps one), or when the chain has none. The chain's
// Wait and Stop wait for the goroutine that shares the workers; it costs
// one Status round trip per sharing stage per period, and one more for
// each rate stage in front of one.
func WithWorkers(n int) Option {
	return func(opts *options) { opts.workers, opts.shared = n, true }
}

// WithWorkersPeriod sets how often the workers of [WithWorkers] are shared
// again; 0 means [DefaultWorkersPeriod]. Start returns an [ErrConfig] for a
// negative d, or a positive one without WithWorkers.
func WithWorkersPeriod(d time.Duration) Option {
	return func(opts *options) { opts.period = d }
}

// checkWorkers reports what makes the workers o asks for unusable in the
// chain plan describes.
func (o options) checkWorkers(plan func() core.Plan) error {
	switch {
	case o.period < 0:
		return invalid("workers period must not be negative, got %v", o.period)
	case o.period > 0 && !o.shared:
		return invalid("a workers period needs WithWorkers")
	case !o.shared:
		return nil
	}
	switch n := len(plan().Sharing()); {
	case n == 0:
		return invalid("workers need a stage that shares them, and the chain has none")
	case o.workers < n:
		return invalid("workers must be at least the chain's %d stages that share them, got %d", n, o.workers)
	}
	return nil
}
