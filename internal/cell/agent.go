package cell

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/internal/bridge"
	"github.com/evolvekit/evolve/internal/fields"
	"github.com/evolvekit/evolve/internal/meter"
	"github.com/evolvekit/evolve/internal/trace"
	"github.com/rs/zerolog"
	"golang.org/x/sys/cpu"
)

// Agent is one running agent: the agent.Handle[I, V] a program holds, and
// what its cell, its workers and the agents beside it in a chain reach it
// by. I is the type of the items its inbox takes, V that of its status.
//
// Its life has three parts that end on their own: the outcome (it finished,
// failed or was stopped), its workers (all returned once it halted) and its
// actor (gone from the runtime). Done is closed when all three have ended;
// the agent then leaves the runtime and keeps only its outcome and final
// status.
type Agent[I, V any] struct {
	rt   *bridge.Parts
	id   string                    // the actor's ID
	pid  atomic.Pointer[actor.PID] // nil once the actor is gone
	name string
	log  zerolog.Logger

	// The inbox, the relay and the lock below are written by the
	// workers, the poster and the agent's goroutine each all the time:
	// each has cache lines of its own, away from one another and from the
	// fields that are only read once set (a worker that read rt, say, on a
	// line the inbox's lock shares would take a cache miss at each turn).
	_  cpu.CacheLinePad
	in inbox[I] // what waits for the actor, and the input queue's credits
	_  cpu.CacheLinePad

	// relay notes the idle neighbours the agent wakes as it takes in its
	// inbox (see relay); started says its actor has handled Started, so
	// another goroutine may take its inbox in; takeIn does that, given the
	// token: it is the cell's.
	started atomic.Bool
	// spawned says the actor exists, so that a wake sent to its PID
	// reaches it; a wake asked for before (by its port, which opens
	// first) is noted in early and sent once it is (see wake).
	spawned, early atomic.Bool
	takeIn         func(woke []relayed) ([]relayed, pause)
	_              cpu.CacheLinePad
	relay          Relay
	_              cpu.CacheLinePad

	gauges *meter.Gauges // where the agent publishes its metrics; nil for none
	line   *trace.Line   // the spans of its items, under the inbox's lock; nil untraced

	queries atomic.Uint64
	qmu     sync.Mutex
	pending map[uint64]chan V

	workCtx context.Context
	cancel  context.CancelCauseFunc
	dismiss func() // closes the workers' line once no work may start: idle workers go (see crew)

	_         cpu.CacheLinePad
	mu        sync.Mutex
	outcome   error // what Wait returns, once ended
	ended     bool
	sinkErr   error // the first panic of the sink
	halted    bool  // no work starts any more; the workers' line is closed
	running   int   // workers alive, but those visiting
	visiting  int   // workers taking the inbox in (see cell.finished)
	workers   int   // workers ever started
	actorGone bool
	final     V // the status taken as the actor stopped
	hasFinal  bool
	logFinal  bool          // a LogStatus came while the actor was stopping
	idle      chan struct{} // closed once halted and no worker runs
	gone      chan struct{} // closed once the actor is gone, final set
	done      chan struct{} // closed once ended, idle and gone
	isIdle    bool
	isDone    bool
	onDone    []func()
}

// newAgent returns the handle of an agent about to start on rt.
func newAgent[I, V any](rt *bridge.Parts, name string, queue int) *Agent[I, V] {
	h := &Agent[I, V]{
		rt:      rt,
		name:    name,
		in:      inbox[I]{credits: queue, bound: queue},
		pending: make(map[uint64]chan V),
		idle:    make(chan struct{}),
		gone:    make(chan struct{}),
		done:    make(chan struct{}),
	}
	h.workCtx, h.cancel = context.WithCancelCause(context.Background())
	if rt.Meter != nil {
		h.gauges = rt.Meter.Agent(name)
	}
	return h
}

// Name returns the agent's name, as it appears in logs.
func (h *Agent[I, V]) Name() string { return h.name }

// Post implements agent.Handle.
func (h *Agent[I, V]) Post(ctx context.Context, v I) error {
	span := h.line.Begin(ctx) // before the lock: the sampler's cost is the poster's alone
	for {
		h.in.mu.Lock()
		if h.in.closed {
			h.in.mu.Unlock()
			return span.Refused(agent.ErrClosed)
		}
		if h.in.spend(v) {
			h.accept(span, v)
			return nil
		}
		space := h.in.waitSpace()
		h.in.mu.Unlock()
		done := ctx.Done()
		if done == nil { // a context that never ends: a receive, not a select
			<-space
			continue
		}
		select {
		case <-space:
		case <-done:
			return span.Refused(ctx.Err())
		}
	}
}

// TryPost implements agent.Handle.
func (h *Agent[I, V]) TryPost(v I) error {
	h.in.mu.Lock()
	switch {
	case h.in.closed:
		h.in.mu.Unlock()
		return agent.ErrClosed
	case !h.in.spend(v):
		h.in.mu.Unlock()
		return agent.ErrFull
	}
	h.accept(h.line.Begin(context.Background()), v)
	return nil
}

// accept puts v, posted with its span begun, for which the caller spent a
// credit, in the inbox and unlocks it, which the caller locked.
func (h *Agent[I, V]) accept(span trace.Posted, v I) {
	h.line.Accept(span)
	h.in.put(v)
	h.notify()
}

// Close implements agent.Handle.
func (h *Agent[I, V]) Close() {
	h.in.mu.Lock()
	if h.in.closed {
		h.in.mu.Unlock()
		return
	}
	h.in.closed = true
	h.in.refill()
	h.in.add(agent.Close{})
	h.notify()
}

// Wait implements agent.Handle.
func (h *Agent[I, V]) Wait(ctx context.Context) error {
	select {
	case <-h.done:
		return h.outcome
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Done implements agent.Handle.
func (h *Agent[I, V]) Done() <-chan struct{} { return h.done }

// Status implements agent.Handle.
func (h *Agent[I, V]) Status(ctx context.Context) (V, error) {
	var zero V
	if err := ctx.Err(); err != nil {
		return zero, err
	}
	if v, ok := h.finalStatus(); ok {
		return v, nil
	}
	id := h.queries.Add(1)
	reply := make(chan V, 1)
	h.qmu.Lock()
	h.pending[id] = reply
	h.qmu.Unlock()
	defer func() {
		h.qmu.Lock()
		delete(h.pending, id)
		h.qmu.Unlock()
	}()
	if h.post(agent.Query{ID: id}) {
		select {
		case v := <-reply:
			return v, nil
		case <-h.gone:
		case <-ctx.Done():
			return zero, ctx.Err()
		}
	}
	select {
	case <-h.gone:
	case <-ctx.Done():
		return zero, ctx.Err()
	}
	if v, ok := h.finalStatus(); ok {
		return v, nil
	}
	return zero, agent.ErrClosed
}

// LogStatus implements agent.Handle.
func (h *Agent[I, V]) LogStatus() {
	if h.post(agent.Query{ID: 0}) {
		return
	}
	h.mu.Lock()
	v, ok := h.final, h.hasFinal
	h.logFinal = !h.actorGone
	h.mu.Unlock()
	if ok {
		h.logStatus(v)
	}
}

// Stop implements agent.Handle.
func (h *Agent[I, V]) Stop(ctx context.Context) error {
	h.Halt()
	select {
	case <-h.idle:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Halt stops the agent without waiting: the inbox takes nothing more, the
// outcome is ErrStopped unless it was known, the context of running work is
// cancelled, idle workers go and the actor is woken to stop itself. It is
// what Stop and the runtime's Shutdown do first.
//
// The actor stops itself, rather than being sent protoactor's Stop, because
// its ID is reused once it is gone: a Stop sent late would stop another
// agent, while a wake sent late only makes one look at its inbox.
func (h *Agent[I, V]) Halt() {
	h.in.mu.Lock()
	first := !h.in.stopped
	h.in.closed, h.in.stopped = true, true
	h.in.refill()
	h.in.drop()
	wake := first && h.in.schedule()
	h.in.mu.Unlock()
	h.cancel(agent.ErrStopped)
	h.update(func() {
		h.end(agent.ErrStopped)
		h.halt()
	})
	if wake {
		h.wake()
	}
}

// send hands the agent m, a message its evolve takes, unless it has
// ended (see Send).
func (h *Agent[I, V]) send(m agent.Msg) error {
	if !h.post(m) {
		return agent.ErrClosed
	}
	return nil
}

// finalStatus returns the status taken as the actor stopped, if there is
// one yet.
func (h *Agent[I, V]) finalStatus() (V, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.final, h.hasFinal
}

// answer completes the Status call with this id; id 0 is LogStatus's.
func (h *Agent[I, V]) answer(id uint64, v V) {
	if id == 0 {
		h.logStatus(v)
		return
	}
	h.qmu.Lock()
	reply, ok := h.pending[id]
	h.qmu.Unlock()
	if ok {
		reply <- v
	}
}

// logStatus writes v as one event at info level, its fields by the one
// rule of package fields.
func (h *Agent[I, V]) logStatus(v V) {
	h.log.Info().Object("status", fields.Object(v)).Msg("status")
}
