package sim

import (
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/internal/pace"
)

// runner is one run in progress: the agent's state, the event queue, the
// feeder's slots, the backlog and the counts.
type runner[S, I, W, R, O any] struct {
	cfg Config
	a   Agent[S, I, W, R, O]
	s   S

	q        queue[R]
	now      time.Duration
	seq      uint64
	pending  int // events other than samples still queued
	arrivals *rand.Rand
	service  *rand.Rand

	credits  int               // input slots the feeder holds
	backlog  int64             // arrived, waiting outside the agent
	running  map[uint64]bool   // IDs of the work in flight
	timers   map[uint64]uint64 // tag to the generation of its pending timer
	gen      uint64
	demand   int // granted downstream, not yet used
	closed   bool
	stopped  bool
	violated error

	res Result
}

func newRunner[S, I, W, R, O any](cfg Config, a Agent[S, I, W, R, O]) *runner[S, I, W, R, O] {
	return &runner[S, I, W, R, O]{
		cfg:      cfg,
		a:        a,
		s:        a.State,
		arrivals: rand.New(rand.NewPCG(cfg.Seed, 0xa77)),
		service:  rand.New(rand.NewPCG(cfg.Seed, 0x5e7)),
		credits:  a.Queue,
		running:  make(map[uint64]bool),
		timers:   make(map[uint64]uint64),
		res:      Result{Digest: 14695981039346656037},
	}
}

// run delivers every event in order until the run stops.
func (r *runner[S, I, W, R, O]) run() error {
	demand := r.cfg.Demand
	if demand == 0 {
		demand = agent.Unbounded
	}
	r.demand = demand
	r.deliver(agent.Pull{At: Epoch, N: demand})
	r.schedule(event[R]{kind: arrive})
	r.schedule(event[R]{at: r.cfg.Duration, kind: end})
	if r.cfg.Every > 0 {
		r.schedule(event[R]{kind: sample})
	}
	for !r.stopped && r.violated == nil && r.pending > 0 {
		e := r.q.pop()
		if e.kind != sample {
			r.pending--
		}
		r.now = e.at
		r.mix(uint64(e.kind), uint64(e.at), e.id)
		r.handle(e)
		r.feed()
	}
	r.res.End = r.now
	r.record()
	return r.violated
}

// schedule queues e at its instant, after the events already queued for it.
func (r *runner[S, I, W, R, O]) schedule(e event[R]) {
	e.seq = r.seq
	r.seq++
	if e.kind != sample {
		r.pending++
	}
	r.q.push(e)
}

// handle performs one event.
func (r *runner[S, I, W, R, O]) handle(e event[R]) {
	switch e.kind {
	case arrive:
		r.arrive()
	case finish:
		r.done(e)
	case tick:
		if g, ok := r.timers[e.id]; ok && g == e.gen {
			delete(r.timers, e.id)
			r.deliver(agent.Tick{At: r.at(), Tag: e.id})
		}
	case sample:
		r.record()
		if next := r.now + r.cfg.Every; next < r.cfg.Duration {
			r.schedule(event[R]{at: next, kind: sample})
		}
	case end:
		r.ending()
	case pass:
		r.deliver(agent.Event[pace.Pass]{At: r.at(), Value: pace.Pass{N: int(e.id)}})
	}
}

// arrive adds the items arriving now to the backlog and schedules the next
// arrival, until the run's Duration.
func (r *runner[S, I, W, R, O]) arrive() {
	if r.closed || r.now >= r.cfg.Duration {
		return
	}
	n, next, more := arrivalsAt(r.cfg.Arrivals, r.arrivals, r.now, r.cfg.Duration)
	if n > 0 {
		r.backlog = min(r.backlog+int64(n), math.MaxInt32)
		r.res.Arrived += int64(n)
	}
	if more {
		r.schedule(event[R]{at: next, kind: arrive})
	}
}

// ending stops the run at Duration, or closes the input and lets the agent
// drain.
func (r *runner[S, I, W, R, O]) ending() {
	if !r.cfg.Drain {
		r.stopped = true
		return
	}
	r.closed = true
	r.backlog = 0
	r.deliver(agent.Close{At: r.at()})
}

// done delivers the Done of a piece of work.
func (r *runner[S, I, W, R, O]) done(e event[R]) {
	delete(r.running, e.id)
	r.res.Done++
	r.res.Service.Add(r.now - e.from)
	r.deliver(agent.Done[R]{At: r.at(), ID: e.id, Result: e.res, Err: e.err})
}

// feed posts waiting items while the feeder holds input slots.
func (r *runner[S, I, W, R, O]) feed() {
	for !r.stopped && !r.closed && r.violated == nil && r.credits > 0 && r.backlog > 0 {
		n := int(min(int64(r.credits), r.backlog))
		r.credits -= n
		r.backlog -= int64(n)
		items := make([]I, n)
		if r.a.Item != nil {
			for i := range items {
				items[i] = r.a.Item(uint64(r.res.Posted) + uint64(i))
			}
		}
		r.res.Posted += int64(n)
		r.mix(uint64(n))
		r.deliver(agent.Input[I]{At: r.at(), Items: items})
	}
}

// at is the instant of virtual time now, which every message delivered now
// carries in its At field. (Building the message with At set is what
// agent.Stamp does, without boxing the message twice.)
func (r *runner[S, I, W, R, O]) at() time.Time { return Epoch.Add(r.now) }

// deliver evolves the agent with m, whose At is the virtual time now, and
// performs the effects it asks for.
func (r *runner[S, I, W, R, O]) deliver(m agent.Msg) {
	var fx []agent.Effect
	r.s, fx = r.a.Evolve(r.s, m)
	r.res.Messages++
	for _, e := range fx {
		if r.violated != nil {
			return
		}
		if _, ok := e.(agent.Unhandled); ok {
			r.violate("did not handle %T", m)
			return
		}
		r.perform(e)
	}
}

// perform carries out one effect.
func (r *runner[S, I, W, R, O]) perform(e agent.Effect) {
	switch e := e.(type) {
	case agent.Start[W]:
		r.start(e)
	case agent.Emit[O]:
		r.emit(len(e.Values))
	case agent.Timer:
		r.gen++
		r.timers[e.Tag] = r.gen
		r.schedule(event[R]{at: r.now + max(e.Delay, 0), kind: tick, id: e.Tag, gen: r.gen})
	case agent.Disarm:
		delete(r.timers, e.Tag)
	case agent.Demand:
		r.credits += e.N
		if e.N < 0 || r.credits > r.a.Queue {
			r.violate("gave back %d input slots, holding %d of %d", e.N, r.credits, r.a.Queue)
		}
	case agent.Finish:
		r.res.Finished, r.res.Err, r.stopped = true, e.Err, true
	case agent.Cancel:
		// Simulated work has no context to cancel: it takes its time.
	case agent.DeadLetter:
		// A run has no dead-letter sink: the failed result stands.
	case agent.Send[pace.Reserve]:
		// A lone agent paces nobody but itself: its passes come at once.
		if e.Value.N > 0 {
			r.schedule(event[R]{at: r.now, kind: pass, id: uint64(e.Value.N)})
		}
	default:
		if !isReply(e) {
			r.violate("asked for an effect it cannot ask for: %T", e)
		}
	}
}

// start runs a piece of work: its Done comes after the service time the
// capacity gives at the concurrency now in effect.
func (r *runner[S, I, W, R, O]) start(e agent.Start[W]) {
	if r.running[e.ID] {
		r.violate("started work %d while it was in flight", e.ID)
		return
	}
	r.running[e.ID] = true
	r.res.Started++
	d := max(r.cfg.Capacity.Service(r.service, r.now, len(r.running)), 0)
	ev := event[R]{at: r.now + d, kind: finish, id: e.ID, from: r.now}
	if r.a.Work != nil {
		ev.res, ev.err = r.a.Work(e.Work)
	}
	r.schedule(ev)
}

// emit counts values emitted against the demand granted.
func (r *runner[S, I, W, R, O]) emit(n int) {
	if n > r.demand {
		r.violate("emitted %d values holding demand for %d", n, r.demand)
		return
	}
	r.demand -= n
	r.res.Emitted += int64(n)
}

// record appends a sample of the run now to the trace.
func (r *runner[S, I, W, R, O]) record() {
	if r.cfg.Every <= 0 {
		return
	}
	if n := len(r.res.Trace); n > 0 && r.res.Trace[n-1].At == r.now {
		return
	}
	limit := 0
	if r.a.Limit != nil {
		limit = r.a.Limit(r.s)
	}
	r.res.Trace = append(r.res.Trace, Sample{
		At: r.now, Limit: limit, InFlight: len(r.running), Queued: r.a.Queue - r.credits,
		Backlog: r.backlog, Started: r.res.Started, Done: r.res.Done, Emitted: r.res.Emitted,
	})
}

// violate stops the run with a broken promise.
func (r *runner[S, I, W, R, O]) violate(format string, args ...any) {
	args = append(args, r.now)
	r.violated = broken(format+" (at %v)", args...)
}

// mix folds values into the run's digest (FNV-1a over 64-bit words).
func (r *runner[S, I, W, R, O]) mix(vs ...uint64) {
	for _, v := range vs {
		r.res.Digest = (r.res.Digest ^ v) * 1099511628211
	}
}

// isReply reports whether e is a Reply effect, of any status type. The
// simulator sends no Query, but an agent may answer one it never got.
func isReply(e agent.Effect) bool {
	t := reflect.TypeOf(e)
	return t.PkgPath() == agentPath && strings.HasPrefix(t.Name(), "Reply[")
}

// agentPath is the import path of package agent.
var agentPath = reflect.TypeFor[agent.Finish]().PkgPath()
