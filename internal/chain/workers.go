package chain

import (
	"context"
	"slices"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/internal/budget"
	"github.com/evolvekit/evolve/internal/core"
	"github.com/rs/zerolog"
)

// sharer is how a stage shares the workers: its Share, and, for a stage
// behind a pacer, the pacer's position and the bound of the stage's queue,
// for budget.Paced.
type sharer struct {
	share *budget.Share
	pacer int // -1 for none
	queue int
}

// workers shares a chain's workers among its agents that share them, on a
// goroutine of its own that the chain's Wait and Stop wait for. A nil
// *workers is a chain without them.
type workers struct {
	n         int
	period    time.Duration
	clock     agent.Clock
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

// startWorkers splits o.Workers evenly among the members that share them,
// which plan describes, and starts the goroutine that shares them again
// every o.Period until done is closed or halt is called.
func startWorkers(o Options, clock agent.Clock, log zerolog.Logger, plan core.Plan, members []core.Runner, done <-chan struct{}) *workers {
	at := plan.Sharing()
	w := &workers{n: o.Workers, period: o.Period, clock: clock, log: log, sharing: make([]sharer, len(at)),
		estimates: make([]budget.Estimate, len(at)), done: done, exited: make(chan struct{})}
	if w.period == 0 {
		w.period = budget.DefaultPeriod
	}
	w.pacers = make([]core.Runner, len(at))
	for j, i := range at {
		w.sharing[j] = sharerAt(plan.Agents, i)
		w.members = append(w.members, members[i])
		if p := w.sharing[j].pacer; p >= 0 {
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

// sharerAt returns how the agent at position i of agents, which shares the
// workers, does: behind a pacer if the agent before it keeps a pace whose
// passes it reserves.
func sharerAt(agents []core.PlanAgent, i int) sharer {
	a := agents[i]
	s := sharer{share: a.Share, pacer: -1, queue: a.Queue}
	if i > 0 && agents[i-1].Paces && a.Reserves {
		s.pacer = i - 1
	}
	return s
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
