package compose

import (
	"context"
	"slices"
	"time"

	"github.com/evolvekit/evolve/internal/bridge"
	"github.com/evolvekit/evolve/internal/budget"
	"github.com/evolvekit/evolve/internal/core"
	"github.com/rs/zerolog"
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

// sharer is how a stage shares the workers: its Share, and, for a stage
// behind a pacer, the pacer's position and the bound of the stage's queue,
// for budget.Paced.
type sharer struct {
	share *budget.Share
	pacer int // -1 for none
	queue int
}

// checkWorkers reports what makes the workers o asks for unusable in the
// chain plan describes, and returns the positions of the stages that share
// them, with how each does.
func (o options) checkWorkers(plan func() core.Plan) (at []int, sharing []sharer, err error) {
	switch {
	case o.period < 0:
		return nil, nil, invalid("workers period must not be negative, got %v", o.period)
	case o.period > 0 && !o.shared:
		return nil, nil, invalid("a workers period needs WithWorkers")
	case !o.shared:
		return nil, nil, nil
	}
	agents := plan().Agents
	for i, a := range agents {
		if a.Share == nil {
			continue
		}
		s := sharer{share: a.Share, pacer: -1, queue: a.Queue}
		if i > 0 && agents[i-1].Paces && a.Reserves {
			s.pacer = i - 1
		}
		at, sharing = append(at, i), append(sharing, s)
	}
	switch {
	case len(at) == 0:
		return nil, nil, invalid("workers need a stage that shares them, and the chain has none")
	case o.workers < len(at):
		return nil, nil, invalid("workers must be at least the chain's %d stages that share them, got %d", len(at), o.workers)
	}
	return at, sharing, nil
}

// workers shares a chain's workers among its stages that share them, on a
// goroutine of its own that the chain's Wait and Stop wait for. A nil
// *workers is a chain without them.
type workers struct {
	n         int
	period    time.Duration
	clock     bridge.Clock
	log       zerolog.Logger
	members   []core.Runner // the stages that share the workers
	pacers    []core.Runner // the pacer before each, or nil
	sharing   []sharer      // how each does
	estimates []budget.Estimate
	shares    []int
	ctx       context.Context // ends when the chain is stopped
	cancel    context.CancelFunc
	done      <-chan struct{} // the chain's: closed once every stage is done
	exited    chan struct{}   // closed once the goroutine has returned
}

// startWorkers splits n workers evenly among the members at the positions
// at, which share them as sharing says, and starts the goroutine that
// shares them again every period until done is closed or halt is called.
func startWorkers(o options, rt *bridge.Parts, log zerolog.Logger, members []core.Runner, at []int, sharing []sharer, done <-chan struct{}) *workers {
	w := &workers{n: o.workers, period: o.period, clock: rt.Clock, log: log, sharing: sharing,
		estimates: make([]budget.Estimate, len(at)), done: done, exited: make(chan struct{})}
	if w.period == 0 {
		w.period = DefaultWorkersPeriod
	}
	w.pacers = make([]core.Runner, len(at))
	for j, i := range at {
		w.members = append(w.members, members[i])
		if p := sharing[j].pacer; p >= 0 {
			w.pacers[j] = members[p]
		}
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

// reallocate asks each stage for its status (and the pacer before it, if
// any, for its Load: budget.Paced), shares the workers by budget.Allocate,
// and sets the limit of each stage whose share differs
// from its limit. It gives up for this period if a status cannot be had.
func (w *workers) reallocate() {
	demand := make([]budget.Demand, len(w.members))
	limits := make([]int, len(w.members))
	for i, m := range w.members {
		st, _, err := m.Status(w.ctx)
		if err != nil {
			return
		}
		r := w.read(i, st)
		w.estimates[i] = w.estimates[i].Observe(r)
		demand[i], limits[i] = w.estimates[i].Demand(), r.Limit
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

// read returns what the i-th sharing stage's status st tells the budget,
// with the items that wait for it in the pacer before it, if any. A pacer
// whose status cannot be had holds none.
func (w *workers) read(i int, st any) budget.Reading {
	s := w.sharing[i]
	r := s.share.Read(w.clock.Now(), st)
	if w.pacers[i] == nil {
		return r
	}
	_, load, err := w.pacers[i].Status(w.ctx)
	if err != nil {
		return r
	}
	return budget.Paced(r, load, s.queue)
}

// set sets the limit of the i-th sharing stage to n. A stage that has ended
// needs no workers: the agent.ErrClosed that says so is ignored.
func (w *workers) set(i, n int) {
	_ = core.Adjust(w.members[i], w.sharing[i].share.Limit(w.clock.Now(), n))
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
