package compose

import (
	"context"
	"slices"
	"time"

	"github.com/evolvekit/evolve/adaptive"
	"github.com/evolvekit/evolve/internal/bridge"
	"github.com/evolvekit/evolve/internal/budget"
	"github.com/evolvekit/evolve/internal/core"
	"github.com/evolvekit/evolve/parallel"
	"github.com/rs/zerolog"
)

// DefaultWorkersPeriod is how often a chain started [WithWorkers]
// reallocates its workers, unless [WithWorkersPeriod] says otherwise.
const DefaultWorkersPeriod = budget.DefaultPeriod

// WithWorkers makes the chain's parallel and adaptive stages share n
// workers, so that the workers follow the bottleneck. At the start they
// are split evenly, and each stage's limit is set to its share, whatever
// its Limit setting. Then, every [DefaultWorkersPeriod] (see
// [WithWorkersPeriod]), the chain asks each of those stages for its status,
// once, and shares the workers again by the highest-averages rule
// (Jefferson, D'Hondt): each stage keeps one worker of its own, and the
// others go, one at a time, to the stage with the highest queue length ×
// mean service time / (w + 1), w counting the workers it has beyond its
// own: to the stage that would take longest to work through its queue.
// Ties go to the stage with fewer workers, then to the earlier one.
//
// The queue length is the stage's Queued. The service time, the time one
// worker spends on one item, is read from the stage's counters by Little's
// law: the workers busy (its Batches, the mean of two statuses) times the
// period, divided by the items done in it; it is smoothed over the
// periods. A parallel stage's limit is its share; lowering it lets the
// work in flight finish. An adaptive stage's limit is set to its share,
// within its Min and Max, and its controller carries on from there until
// the next period, so the workers of a chain with adaptive stages are a
// target rather than a bound.
//
// Start returns an [ErrConfig] when n is below the number of parallel and
// adaptive stages (each keeps one worker), or when the chain has none. The
// chain's Wait and Stop wait for the goroutine that shares the workers; it
// costs one Status round trip per sharing stage per period.
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
// chain plan describes, and returns the positions of the stages that share
// them, with their kinds.
func (o options) checkWorkers(plan func() core.Plan) (at []int, kinds []budget.Kind, err error) {
	switch {
	case o.period < 0:
		return nil, nil, invalid("workers period must not be negative, got %v", o.period)
	case o.period > 0 && !o.shared:
		return nil, nil, invalid("a workers period needs WithWorkers")
	case !o.shared:
		return nil, nil, nil
	}
	for i, a := range plan().Agents {
		st, _ := a.New().Status(time.Time{})
		if _, k := budget.Read(time.Time{}, st); k != budget.None {
			at, kinds = append(at, i), append(kinds, k)
		}
	}
	switch {
	case len(at) == 0:
		return nil, nil, invalid("workers need a parallel or adaptive stage to share them, and the chain has none")
	case o.workers < len(at):
		return nil, nil, invalid("workers must be at least the chain's %d parallel and adaptive stages, got %d", len(at), o.workers)
	}
	return at, kinds, nil
}

// workers shares a chain's workers among its parallel and adaptive stages,
// on a goroutine of its own that the chain's Wait and Stop wait for. A nil
// *workers is a chain without them.
type workers struct {
	n       int
	period  time.Duration
	clock   bridge.Clock
	log     zerolog.Logger
	members []core.Runner // the stages that share the workers
	kinds   []budget.Kind
	stages  []budget.Stage
	shares  []int
	ctx     context.Context // ends when the chain is stopped
	cancel  context.CancelFunc
	done    <-chan struct{} // the chain's: closed once every stage is done
	exited  chan struct{}   // closed once the goroutine has returned
}

// startWorkers splits n workers evenly among the members at the positions
// at, of the kinds given, and starts the goroutine that shares them again
// every period until done is closed or halt is called.
func startWorkers(o options, rt *bridge.Parts, log zerolog.Logger, members []core.Runner, at []int, kinds []budget.Kind, done <-chan struct{}) *workers {
	w := &workers{n: o.workers, period: o.period, clock: rt.Clock, log: log, kinds: kinds,
		stages: make([]budget.Stage, len(at)), done: done, exited: make(chan struct{})}
	if w.period == 0 {
		w.period = DefaultWorkersPeriod
	}
	for _, i := range at {
		w.members = append(w.members, members[i])
	}
	w.ctx, w.cancel = context.WithCancel(context.Background())
	w.shares = budget.Allocate(w.n, make([]budget.Demand, len(at)))
	for i, n := range w.shares {
		w.set(i, n)
	}
	go w.loop()
	return w
}

// loop shares the workers again every period, until the chain is done or
// stopped.
func (w *workers) loop() {
	defer close(w.exited)
	defer w.cancel()
	tick := make(chan struct{}, 1)
	for {
		stop := w.clock.AfterFunc(w.period, func() { tick <- struct{}{} })
		select {
		case <-tick:
		case <-w.ctx.Done():
			stop()
			return
		case <-w.done:
			stop()
			return
		}
		w.reallocate()
	}
}

// reallocate asks each stage for its status, shares the workers by
// budget.Allocate, and sets the limit of each stage whose share differs
// from its limit. It gives up for this period if a status cannot be had.
func (w *workers) reallocate() {
	demand := make([]budget.Demand, len(w.members))
	limits := make([]int, len(w.members))
	for i, m := range w.members {
		st, _, err := m.Status(w.ctx)
		if err != nil {
			return
		}
		r, _ := budget.Read(w.clock.Now(), st)
		w.stages[i] = w.stages[i].Observe(r)
		demand[i], limits[i] = w.stages[i].Demand(), r.Limit
	}
	shares := budget.Allocate(w.n, demand)
	for i, n := range shares {
		if n != limits[i] {
			w.set(i, n)
		}
	}
	if !slices.Equal(shares, w.shares) {
		w.shares = shares
		w.log.Debug().Ints("workers", shares).Msg("workers shared")
	}
}

// set sets the limit of the i-th sharing stage to n. A stage that has ended
// needs no workers: the agent.ErrClosed that says so is ignored.
func (w *workers) set(i, n int) {
	switch w.kinds[i] {
	case budget.Parallel:
		_ = core.Set(w.members[i], parallel.Limit(n))
	case budget.Adaptive:
		_ = core.Set(w.members[i], adaptive.Limit(n))
	}
}

// halt stops the sharing without waiting.
func (w *workers) halt() {
	if w != nil {
		w.cancel()
	}
}

// wait waits for the goroutine to return, which it does once the chain is
// done or stopped; it returns ctx.Err() if ctx ends first.
func (w *workers) wait(ctx context.Context) error {
	if w == nil {
		return nil
	}
	select {
	case <-w.exited:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
