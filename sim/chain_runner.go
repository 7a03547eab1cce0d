package sim

import (
	"context"
	"math"
	"math/rand/v2"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/internal/core"
	"github.com/evolvekit/evolve/internal/pace"
)

// chainRunner is one chain run in progress: its agents, the event agenda,
// the feeder's backlog and the counts. Its item and sink functions carry
// the chain's types; the rest sees values as the plan does, type-erased.
type chainRunner struct {
	cfg    ChainConfig
	agents []member
	in     []core.Convert // the conversions before the first agent
	limit  func(status any) int
	items  func(from uint64, n int) any
	sink   func(at time.Duration, batch any)
	ctx    context.Context

	agenda   agenda
	now      time.Duration
	seq      uint64
	pending  int // events other than samples still to come
	arrivals *rand.Rand

	backlog  int64  // arrived, waiting outside the first agent
	taken    uint64 // items taken from the backlog so far
	left     int    // agents not yet finished
	closed   bool
	stopped  bool
	violated error
	workers  *workers // the budget of ChainConfig.Workers; nil without

	res Result
}

// member is one agent of a chain run, as the runtime would link it.
type member struct {
	core.PlanAgent
	m       core.Machine
	out     []core.Convert // between its values and the next agent's items
	paces   bool           // the agent after it reserves passes of it
	capa    Capacity
	service *rand.Rand
	demand  int                 // granted by the next agent, not yet used
	held    int                 // items handed to it, not yet given back
	running map[uint64]struct{} // IDs of its work in flight
	timers  map[uint64]uint64   // tag to the generation of its pending timer
	gen     uint64
	over    bool  // finished: nothing more is delivered to it
	ended   bool  // the agent after it was closed
	failed  error // what its Finish carried
	sinkErr error // the first panic of a MapOut function after it
	refusal error // why its MapIn functions refused the first item
	st      StageResult
}

func newChainRunner(cfg ChainConfig, plan core.Plan, limit func(any) int) *chainRunner {
	r := &chainRunner{
		cfg:      cfg,
		agents:   make([]member, len(plan.Agents)),
		in:       plan.In,
		limit:    limit,
		sink:     func(time.Duration, any) {},
		ctx:      context.Background(),
		arrivals: rand.New(rand.NewPCG(cfg.Seed, 0xa77)),
		left:     len(plan.Agents),
		res:      Result{Digest: 14695981039346656037, Stages: make([]StageResult, len(plan.Agents))},
	}
	last := len(plan.Agents) - 1
	for i, p := range plan.Agents {
		a := &r.agents[i]
		a.PlanAgent, a.m, a.out = p, p.New(), p.Next
		a.service = rand.New(rand.NewPCG(cfg.Seed, 0x5e7+uint64(i)))
		a.running, a.timers = make(map[uint64]struct{}), make(map[uint64]uint64)
		a.st.Name, a.st.Queue = p.Name, p.Queue
		if i < len(cfg.Capacity) {
			a.capa = cfg.Capacity[i]
		}
		if i == last {
			a.out = plan.Out
		} else {
			a.paces = p.Paces && plan.Agents[i+1].Reserves
		}
	}
	return r
}

// run starts the agents and delivers every event in order until the run
// stops.
func (r *chainRunner) run() error {
	r.begin()
	r.startWorkers()
	r.schedule(happening{kind: stepArrive})
	r.schedule(happening{at: r.cfg.Duration, kind: stepEnd})
	if r.cfg.Every > 0 {
		r.schedule(happening{kind: stepSample})
	}
	for !r.stopped && r.violated == nil && r.pending > 0 && r.left > 0 {
		e := r.agenda.next()
		if !e.kind.periodic() {
			r.pending--
		}
		r.now = e.at
		r.handle(e)
		r.feed()
	}
	r.res.End = r.now
	r.record()
	r.conclude()
	return r.violated
}

// begin starts the agents as the runtime links them, last to first: each
// holds the next one's input bound as its demand (the last the sink's),
// and a pacer whose next agent reserves passes is told so.
func (r *chainRunner) begin() {
	demand := r.cfg.Demand
	if demand == 0 {
		demand = agent.Unbounded
	}
	for i := len(r.agents) - 1; i >= 0 && r.violated == nil; i-- {
		if i+1 < len(r.agents) {
			demand = r.agents[i+1].Queue
		}
		r.agents[i].demand = demand
		r.deliver(i, stepPull, uint64(demand), agent.Pull{At: r.at(), N: demand})
		if r.agents[i].paces {
			r.deliver(i, stepReserve, 0, agent.Event[pace.Reservation]{At: r.at()})
		}
	}
}

// schedule queues e at its instant, after the events already queued for it.
func (r *chainRunner) schedule(e happening) {
	e.seq = r.seq
	r.seq++
	if !e.kind.periodic() {
		r.pending++
	}
	r.agenda.add(e, r.now)
}

// send queues a message of kind for agent i now.
func (r *chainRunner) send(i int, kind step, n uint64) {
	r.schedule(happening{at: r.now, kind: kind, agent: i, n: n})
}

// handle performs one event.
func (r *chainRunner) handle(e happening) {
	switch e.kind {
	case stepArrive:
		r.arrive()
	case stepEnd:
		r.ending()
	case stepSample:
		r.record()
		if next := r.now + r.cfg.Every; next < r.cfg.Duration {
			r.schedule(happening{at: next, kind: stepSample})
		}
	case stepWorkers:
		r.reallocate()
	default:
		r.message(e)
	}
}

// message delivers the message e brings to its agent, unless the agent
// has finished.
func (r *chainRunner) message(e happening) {
	a := &r.agents[e.agent]
	if e.kind == stepDone {
		delete(a.running, e.n)
	}
	if a.over {
		return
	}
	at, i := r.at(), e.agent
	switch e.kind {
	case stepDone:
		a.st.Done++
		a.st.Service.Add(r.now - time.Duration(e.gen))
		r.deliver(i, e.kind, e.n, a.m.Done(at, e.n))
	case stepTick:
		if g, ok := a.timers[e.n]; ok && g == e.gen {
			delete(a.timers, e.n)
			r.deliver(i, e.kind, e.n, agent.Tick{At: at, Tag: e.n})
		}
	case stepPull:
		a.demand += min(int(e.n), agent.Unbounded-a.demand)
		r.deliver(i, e.kind, e.n, agent.Pull{At: at, N: int(e.n)})
	case stepPass:
		r.deliver(i, e.kind, e.n, agent.Event[pace.Pass]{At: at, Value: pace.Pass{N: int(e.n)}})
	case stepReserve:
		r.deliver(i, e.kind, e.n, agent.Event[pace.Reservation]{At: at, Value: pace.Reservation{N: int(e.n)}})
	case stepLast:
		r.deliver(i, e.kind, 0, agent.Event[pace.Reservation]{At: at, Value: pace.Reservation{Last: true}})
	case stepClose:
		r.deliver(i, e.kind, 0, agent.Close{At: at})
	case stepInput:
		r.take(i, e.batch, int(e.n))
	}
}

// arrive adds the items arriving now to the backlog and schedules the next
// arrival, until the run's Duration.
func (r *chainRunner) arrive() {
	if r.closed || r.now >= r.cfg.Duration {
		return
	}
	n, next, more := arrivalsAt(r.cfg.Arrivals, r.arrivals, r.now, r.cfg.Duration)
	if n > 0 {
		r.backlog = min(r.backlog+int64(n), math.MaxInt32)
		r.res.Arrived += int64(n)
	}
	if more {
		r.schedule(happening{at: next, kind: stepArrive})
	}
}

// ending stops the run at Duration, or closes the chain's input and lets
// the agents drain.
func (r *chainRunner) ending() {
	if !r.cfg.Drain {
		r.stopped = true
		return
	}
	r.closed = true
	r.backlog = 0
	r.send(0, stepClose, 0)
}

// feed posts waiting items to the first agent while it has room, through
// the chain's MapIn functions; an item they refuse takes no room.
func (r *chainRunner) feed() {
	first := &r.agents[0]
	for !r.stopped && !r.closed && r.violated == nil && !first.over && r.backlog > 0 {
		room := first.Queue - first.held
		if room <= 0 {
			return
		}
		n := int(min(int64(room), r.backlog))
		r.backlog -= int64(n)
		batch := r.items(r.taken, n)
		r.taken += uint64(n)
		for _, c := range r.in {
			kept, dropped, _ := c.Apply(batch)
			batch, n = kept, n-dropped
			first.st.Refused += int64(dropped)
		}
		if n > 0 {
			r.take(0, batch, n)
		}
	}
}

// take hands agent i the n items of batch.
func (r *chainRunner) take(i int, batch any, n int) {
	a := &r.agents[i]
	a.held += n
	a.st.Taken += int64(n)
	if i == 0 {
		r.res.Posted += int64(n)
	}
	a.st.MaxQueued = max(a.st.MaxQueued, a.held)
	if a.held > a.Queue {
		r.violate(i, "was handed %d items, holding %d of %d", n, a.held, a.Queue)
		return
	}
	r.deliver(i, stepInput, uint64(n), a.m.Input(r.at(), batch))
}

// at is the instant of virtual time now, which every message delivered now
// carries in its At field.
func (r *chainRunner) at() time.Time { return Epoch.Add(r.now) }

// deliver evolves agent i with m, a message of kind carrying n, whose At is
// the virtual time now, and performs the effects it asks for, until the
// agent finishes.
func (r *chainRunner) deliver(i int, kind step, n uint64, m agent.Msg) {
	a := &r.agents[i]
	fx := a.m.Step(m)
	a.st.Messages++
	r.res.Messages++
	r.mix(uint64(kind)<<32|uint64(i), uint64(r.now), n)
	for _, e := range fx {
		if r.violated != nil || a.over {
			return
		}
		r.perform(i, e, m)
	}
}

// violate stops the run with a promise agent i broke.
func (r *chainRunner) violate(i int, format string, args ...any) {
	args = append([]any{r.agents[i].Name}, append(args, r.now)...)
	r.violated = broken("agent %s "+format+" (at %v)", args...)
}

// mix folds values into the run's digest (FNV-1a over 64-bit words).
func (r *chainRunner) mix(a, b, c uint64) {
	d := r.res.Digest
	d = (d ^ a) * 1099511628211
	d = (d ^ b) * 1099511628211
	r.res.Digest = (d ^ c) * 1099511628211
}
