package sim

import (
	"context"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/internal/agenda"
	"github.com/evolvekit/evolve/internal/core"
	"github.com/evolvekit/evolve/internal/pace"
)

// runner is one run in progress: its agents, the agenda of events, the
// feeder's backlog and the counts. Its item and sink functions carry the
// stage's types; the rest sees values as the plan does, type-erased, in
// batches (see core.Convert).
type runner struct {
	cfg    Config
	agents []simAgent
	in     []core.Convert // the conversions before the first agent
	limit  func(status any) int
	items  func(from uint64, n int) any
	sink   func(at time.Duration, batch any)
	ctx    context.Context

	agenda   agenda.Agenda[event]
	now      time.Duration
	stamp    time.Time // Epoch.Add(now)
	pending  int       // events other than samples still to come
	arrivals *rand.Rand

	backlog  int64  // arrived, waiting outside the first agent
	taken    uint64 // items taken from the backlog so far
	left     int    // agents not yet finished
	closed   bool
	stopped  bool
	violated error
	workers  *workers // the budget of Config.Workers; nil without

	res Result
}

// simAgent is one agent of a run, as the runtime would link it.
type simAgent struct {
	core.PlanAgent
	m       core.Machine
	out     []core.Convert // between its values and the next agent's items
	paces   bool           // the agent after it reserves passes of it
	capa    Capacity
	shared  *sharedWork // its work in flight, under a Sharing capacity
	service *rand.Rand
	demand  int                      // granted by the next agent, not yet used
	held    int                      // items handed to it, not yet given back
	running map[uint64]time.Duration // its work in flight: ID to the instant it started
	done    agent.Msg                // a Done of its type, which a broken promise names
	input   agent.Msg                // an Input of its type, likewise
	timers  map[uint64]uint64        // tag to the generation of its pending timer
	gen     uint64
	over    bool  // finished: nothing more is delivered to it
	ended   bool  // the agent after it was closed
	failed  error // what its Finish carried
	sinkErr error // the first panic of a MapOut function after it
	refusal error // why its MapIn functions refused the first item
	st      AgentResult
}

func newRunner(cfg Config, plan core.Plan, limit func(any) int) *runner {
	r := &runner{
		cfg:      cfg,
		agents:   make([]simAgent, len(plan.Agents)),
		in:       plan.In,
		limit:    limit,
		sink:     func(time.Duration, any) {},
		ctx:      context.Background(),
		stamp:    Epoch,
		arrivals: rand.New(rand.NewPCG(cfg.Seed, 0xa77)),
		left:     len(plan.Agents),
		res:      Result{Digest: 14695981039346656037, Agents: make([]AgentResult, len(plan.Agents))},
	}
	last := len(plan.Agents) - 1
	for i, p := range plan.Agents {
		a := &r.agents[i]
		a.PlanAgent, a.m, a.out = p, p.New(), p.Next
		msgs := a.m.Messages()
		a.input, a.done = msgs[0], msgs[1]
		a.service = rand.New(rand.NewPCG(cfg.Seed, 0x5e7+uint64(i)))
		a.running, a.timers = make(map[uint64]time.Duration), make(map[uint64]uint64)
		a.st.Name, a.st.Queue = p.Name, p.Queue
		if i < len(cfg.Capacity) {
			a.capa = cfg.Capacity[i]
		}
		if s, ok := a.capa.(Sharing); ok {
			a.shared = &sharedWork{capa: s.Capacity}
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
func (r *runner) run() error {
	r.begin()
	r.startWorkers()
	r.schedule(0, event{kind: evArrive})
	r.schedule(r.cfg.Duration, event{kind: evEnd})
	if r.cfg.Every > 0 {
		r.schedule(0, event{kind: evSample})
	}
	for !r.stopped && r.violated == nil && r.pending > 0 && r.left > 0 {
		at, e := r.agenda.Next()
		if !e.kind.periodic() {
			r.pending--
		}
		if at != r.now {
			r.now, r.stamp = at, Epoch.Add(at)
		}
		r.handle(e)
		r.feed()
	}
	r.res.End = r.now
	if r.now > 0 {
		r.res.Throughput = float64(r.res.Emitted) / r.now.Seconds()
	}
	r.record()
	r.conclude()
	return r.violated
}

// begin starts the agents as the runtime links them, last to first: each
// holds the next one's input bound as its demand (the last the sink's),
// but a pacer whose next agent reserves passes holds none: it is told so,
// then that agent is, which opens room for the items it can start.
func (r *runner) begin() {
	demand := r.cfg.Demand
	if demand == 0 {
		demand = agent.Unbounded
	}
	for i := len(r.agents) - 1; i >= 0 && r.violated == nil; i-- {
		if i+1 < len(r.agents) {
			demand = r.agents[i+1].Queue
		}
		if r.agents[i].paces {
			demand = 0 // its demand is the room the next one opens
		}
		r.agents[i].demand = demand
		if demand > 0 {
			r.deliver(i, evPull, uint64(demand), agent.Pull{At: r.at(), N: demand})
		}
		if r.agents[i].paces {
			r.deliver(i, evReserve, 0, agent.Event[pace.Reservation]{At: r.at()})
			r.deliver(i+1, evPaced, 0, agent.Event[pace.Paced]{At: r.at()})
		}
	}
}

// schedule queues e at instant at, after the events already queued for it.
func (r *runner) schedule(at time.Duration, e event) {
	if !e.kind.periodic() {
		r.pending++
	}
	r.agenda.Add(at, r.now, e)
}

// send queues a message of kind for agent i now.
func (r *runner) send(i int, kind eventKind, n uint64) {
	r.schedule(r.now, event{kind: kind, agent: i, n: n})
}

// handle performs one event.
func (r *runner) handle(e event) {
	switch e.kind {
	case evArrive:
		r.arrive()
	case evEnd:
		r.ending()
	case evSample:
		r.record()
		if next := r.now + r.cfg.Every; next < r.cfg.Duration {
			r.schedule(next, event{kind: evSample})
		}
	case evWorkers:
		r.reallocate()
	case evDone:
		r.done(e.agent, e.n)
	case evShared:
		r.wake(e.agent, e.gen)
	default:
		r.message(e)
	}
}

// message delivers the message e brings to its agent, unless the agent
// has finished.
func (r *runner) message(e event) {
	a := &r.agents[e.agent]
	if a.over {
		return
	}
	at, i := r.at(), e.agent
	switch e.kind {
	case evTick:
		if g, ok := a.timers[e.n]; ok && g == e.gen {
			delete(a.timers, e.n)
			r.deliver(i, e.kind, e.n, agent.Tick{At: at, Tag: e.n})
		}
	case evPull:
		a.demand += min(int(e.n), agent.Unbounded-a.demand)
		r.deliver(i, e.kind, e.n, agent.Pull{At: at, N: int(e.n)})
	case evPass:
		r.deliver(i, e.kind, e.n, agent.Event[pace.Pass]{At: at, Value: pace.Pass{N: int(e.n)}})
	case evReserve:
		r.deliver(i, e.kind, e.n, agent.Event[pace.Reservation]{At: at, Value: pace.Reservation{N: int(e.n)}})
	case evLast:
		r.deliver(i, e.kind, 0, agent.Event[pace.Reservation]{At: at, Value: pace.Reservation{Last: true}})
	case evClose:
		r.deliver(i, e.kind, 0, agent.Close{At: at})
	case evInput:
		r.take(i, e.batch, int(e.n))
	}
}

// done delivers to agent i the Done of its work id, unless it has
// finished.
func (r *runner) done(i int, id uint64) {
	a := &r.agents[i]
	from := a.running[id]
	delete(a.running, id)
	if a.over {
		return
	}
	a.st.Done++
	a.st.Service.Add(r.now - from)
	r.stepped(i, evDone, id, a.m.StepDone(r.at(), id), a.done)
	if len(a.out) > 0 || i == len(r.agents)-1 {
		a.m.Recycle() // what it emitted was copied, or went to the sink
	}
}

// arrive adds the items arriving now to the backlog and schedules the next
// arrival, until the run's Duration.
func (r *runner) arrive() {
	if r.closed || r.now >= r.cfg.Duration {
		return
	}
	n, next, more := arrivalsAt(r.cfg.Arrivals, r.arrivals, r.now, r.cfg.Duration)
	if n > 0 {
		r.backlog = min(r.backlog+int64(n), math.MaxInt32)
		r.res.Arrived += int64(n)
	}
	if more {
		r.schedule(next, event{kind: evArrive})
	}
}

// ending stops the run at Duration, or closes the first agent's input and
// lets the agents drain.
func (r *runner) ending() {
	if !r.cfg.Drain {
		r.stopped = true
		return
	}
	r.closed = true
	r.backlog = 0
	r.send(0, evClose, 0)
}

// feed posts waiting items to the first agent while it has room, through
// the stage's MapIn functions; an item they refuse takes no room.
func (r *runner) feed() {
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
func (r *runner) take(i int, batch any, n int) {
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
	r.stepped(i, evInput, uint64(n), a.m.StepInput(r.at(), batch), a.input)
}

// at is the instant of virtual time now, which every message delivered now
// carries in its At field.
func (r *runner) at() time.Time { return r.stamp }

// deliver evolves agent i with m, a message of kind carrying n, whose At is
// the virtual time now, and performs the effects it asks for, until the
// agent finishes.
func (r *runner) deliver(i int, kind eventKind, n uint64, m agent.Msg) {
	r.stepped(i, kind, n, r.agents[i].m.Step(m), m)
}

// stepped counts a message of kind carrying n that agent i took, m or
// one of its type, and performs the effects fx its step asked for, until
// the agent finishes.
func (r *runner) stepped(i int, kind eventKind, n uint64, fx []agent.Effect, m agent.Msg) {
	a := &r.agents[i]
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
func (r *runner) violate(i int, format string, args ...any) {
	args = append([]any{r.agents[i].Name}, append(args, r.now)...)
	r.violated = broken("agent %s "+format+" (at %v)", args...)
}

// mix folds values into the run's digest (FNV-1a over 64-bit words).
func (r *runner) mix(a, b, c uint64) {
	d := r.res.Digest
	d = (d ^ a) * 1099511628211
	d = (d ^ b) * 1099511628211
	r.res.Digest = (d ^ c) * 1099511628211
}

// isReply reports whether e is a Reply effect, of any status type. The
// simulator sends no Query, but an agent may answer one it never got.
func isReply(e agent.Effect) bool {
	t := reflect.TypeOf(e)
	return t.PkgPath() == agentPath && strings.HasPrefix(t.Name(), "Reply[")
}

// agentPath is the import path of package agent.
var agentPath = reflect.TypeFor[agent.Finish]().PkgPath()
