package sim

import (
	"math"
	"time"

	"github.com/evolvekit/evolve/internal/budget"
	"github.com/evolvekit/evolve/internal/cell"
	"github.com/evolvekit/evolve/internal/core"
)

// DefaultWorkersPeriod is how often a chain run reallocates its
// [Config.Workers] when WorkersPeriod is 0, as a chain started with
// compose.WithWorkers does.
const DefaultWorkersPeriod = budget.DefaultPeriod

// evWorkers is the event that reallocates the workers of a run's budget;
// it takes the last value of an eventKind, clear of the kinds event.go
// lists.
const evWorkers eventKind = math.MaxUint8

// periodic reports whether events of kind k recur on a period of their own
// rather than follow from the agents' work: a run does not wait for them.
func (k eventKind) periodic() bool { return k == evSample || k == evWorkers }

// workers is the budget of a chain run with Config.Workers: the
// agents it shares the workers among, those that declare a Share, and what
// it keeps of each between reallocations.
type workers struct {
	n         int
	period    time.Duration
	agents    []int // their positions in the chain
	estimates []budget.Estimate
	demand    []budget.Demand
}

// checkWorkers reports a budget cfg asks for that the chain plan describes
// cannot have.
func checkWorkers(cfg Config, plan core.Plan) error {
	switch {
	case cfg.Workers < 0:
		return invalid("workers must not be negative, got %d", cfg.Workers)
	case cfg.WorkersPeriod < 0:
		return invalid("workers period must not be negative, got %v", cfg.WorkersPeriod)
	case cfg.Workers == 0:
		return nil
	}
	switch shared := len(plan.Sharing()); {
	case shared == 0:
		return invalid("workers need an agent that shares them, and the chain has none")
	case cfg.Workers < shared:
		return invalid("workers must be at least the chain's %d agents that share them, got %d", shared, cfg.Workers)
	}
	return nil
}

// startWorkers sets up the run's budget, if it has one: it splits the
// workers evenly, sets the agents' limits to match, and schedules the
// first reallocation.
func (r *runner) startWorkers() {
	if r.cfg.Workers == 0 {
		return
	}
	w := &workers{n: r.cfg.Workers, period: r.cfg.WorkersPeriod}
	if w.period == 0 {
		w.period = DefaultWorkersPeriod
	}
	for i := range r.agents {
		if r.agents[i].Share != nil {
			w.agents = append(w.agents, i)
		}
	}
	w.estimates, w.demand = make([]budget.Estimate, len(w.agents)), make([]budget.Demand, len(w.agents))
	r.workers = w
	r.reallocate()
}

// reallocate reads the status of each agent of the budget (with, for one
// behind a pacer, the items waiting for it there: budget.Paced), shares
// the workers by budget.Allocate, sets the limit of each agent whose share
// differs from its limit, and schedules the next reallocation.
func (r *runner) reallocate() {
	w, at := r.workers, r.at()
	limits := make([]int, len(w.agents))
	for j, i := range w.agents {
		st, _ := r.agents[i].m.Status(at)
		rd := r.agents[i].Share.Read(at, st)
		if i > 0 && r.agents[i-1].paces {
			pst, _ := r.agents[i-1].m.Status(at)
			rd = budget.Paced(rd, cell.LoadOf(pst), r.agents[i].Queue)
		}
		w.estimates[j] = w.estimates[j].Observe(rd)
		w.demand[j], limits[j] = w.estimates[j].Demand(), rd.Limit
	}
	for j, n := range budget.Allocate(w.n, w.demand) {
		i := w.agents[j]
		if n != limits[j] && !r.agents[i].over && r.violated == nil {
			r.deliver(i, evWorkers, uint64(n), r.agents[i].Share.Limit(at, n))
		}
	}
	r.schedule(r.now+w.period, event{kind: evWorkers})
}
