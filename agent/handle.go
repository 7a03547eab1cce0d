package agent

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/rs/zerolog"
)

// Handle is a running agent, seen from the program that feeds it: I is the
// type of the items it takes, V the type of its status snapshot.
//
// The input queue is bounded: [Handle.Post] blocks while it is full and
// [Handle.TryPost] reports [ErrFull]. [Handle.Close] ends the input and
// [Handle.Wait] returns once everything accepted has been finished and
// emitted. [Handle.Stop] ends the agent at once.
//
// A Handle is safe for concurrent use. A Post takes a lock and appends to the
// agent's inbox; it sends an actor message only when the agent was idle.
type Handle[I, V any] struct {
	rt   *Runtime
	pid  *actor.PID
	name string
	log  zerolog.Logger

	in inbox[I] // what waits for the actor, and the input queue's credits

	doneOnce sync.Once
	done     chan struct{} // closed when the agent finished, failed or stopped
	err      error         // what Wait returns; written before done is closed
	sinkErr  atomic.Pointer[error]

	goneOnce sync.Once
	gone     chan struct{} // closed when the agent can no longer answer

	queries atomic.Uint64
	qmu     sync.Mutex
	pending map[uint64]chan V

	workCtx  context.Context
	cancel   context.CancelFunc
	wmu      sync.Mutex
	running  int           // workers alive
	workers  int           // workers ever started
	idle     chan struct{} // closed when stopped and no worker runs
	idleDone bool
	stopOnce sync.Once
	stopErr  error
}

// Spawn starts the agent spec describes on rt and returns its handle. It
// returns an error naming the field when spec is incomplete, and [ErrClosed]
// when rt has been shut down.
func Spawn[S, I, W, R, O, V any](rt *Runtime, spec Spec[S, I, W, R, O, V]) (*Handle[I, V], error) {
	return spawn(rt, spec, func(h *Handle[I, V]) ports[O] { return alone(h, spec.Sink) })
}

// spawn starts the agent spec describes, with the ports wire returns for its
// handle.
func spawn[S, I, W, R, O, V any](rt *Runtime, spec Spec[S, I, W, R, O, V], wire func(*Handle[I, V]) ports[O]) (*Handle[I, V], error) {
	if rt == nil {
		return nil, fmt.Errorf("agent: %s: runtime must not be nil", spec.Name)
	}
	if spec.Evolve == nil {
		return nil, fmt.Errorf("agent: %s: evolve must not be nil", spec.Name)
	}
	if spec.Queue < 1 {
		return nil, fmt.Errorf("agent: %s: queue must be at least 1, got %d", spec.Name, spec.Queue)
	}
	h := &Handle[I, V]{
		rt:      rt,
		name:    spec.Name,
		in:      inbox[I]{credits: spec.Queue, bound: spec.Queue},
		done:    make(chan struct{}),
		gone:    make(chan struct{}),
		pending: make(map[uint64]chan V),
		idle:    make(chan struct{}),
	}
	h.workCtx, h.cancel = context.WithCancel(context.Background())
	if err := rt.adopt(h); err != nil {
		h.cancel()
		return nil, err
	}
	// The actor may run (and log, and start work that sends to it) before
	// Spawn returns, so its PID and logger are settled first.
	id := spec.Name + "-" + rt.system.ProcessRegistry.NextId()
	h.pid = rt.system.NewLocalPID(id)
	h.log = rt.log.With().Str("agent", spec.Name).Str("pid", id).Logger()
	c := &cell[S, I, W, R, O, V]{spec: spec, state: spec.State, h: h, ports: wire(h), timers: make(map[uint64]timer)}
	c.crew.jobs = make(chan Start[W])
	props := actor.PropsFromProducer(func() actor.Actor { return c }, actor.WithDispatcher(rt.dispatch))
	if _, err := rt.system.Root.SpawnNamed(props, id); err != nil {
		h.cancel()
		rt.release(h)
		return nil, fmt.Errorf("agent: %s: %w", spec.Name, err)
	}
	return h, nil
}

// Name returns the agent's name, as it appears in logs.
func (h *Handle[I, V]) Name() string { return h.name }

// Post hands v to the agent, blocking while its input queue is full. It
// returns ctx.Err() if ctx ends first, and [ErrClosed] after Close or Stop;
// in both cases v was not accepted. Once Post returns nil, v is the agent's:
// it will come out (or fail) exactly once.
func (h *Handle[I, V]) Post(ctx context.Context, v I) error {
	for {
		h.in.mu.Lock()
		if h.in.closed {
			h.in.mu.Unlock()
			return ErrClosed
		}
		if h.in.credits > 0 {
			h.accept(v)
			return nil
		}
		space := h.in.waitSpace()
		h.in.mu.Unlock()
		select {
		case <-space:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// TryPost hands v to the agent if its input queue has room, and returns
// [ErrFull] if not, or [ErrClosed] after Close or Stop. It never blocks.
func (h *Handle[I, V]) TryPost(v I) error {
	h.in.mu.Lock()
	switch {
	case h.in.closed:
		h.in.mu.Unlock()
		return ErrClosed
	case h.in.credits == 0:
		h.in.mu.Unlock()
		return ErrFull
	}
	h.accept(v)
	return nil
}

// accept spends a credit on v and unlocks the inbox, which the caller
// locked.
func (h *Handle[I, V]) accept(v I) {
	h.in.credits--
	h.in.put(v)
	h.notify()
}

// Close ends the agent's input: later Posts return [ErrClosed], and the
// agent finishes once everything it accepted is done. Every item whose Post
// returned nil reaches evolve before the [Close] message does. Close does not
// wait; Wait does. Calling Close more than once is harmless.
func (h *Handle[I, V]) Close() {
	h.in.mu.Lock()
	if h.in.closed {
		h.in.mu.Unlock()
		return
	}
	h.in.closed = true
	h.in.refill()
	h.in.add(Close{})
	h.notify()
}

// Wait blocks until the agent has finished after Close: every accepted item
// finished and emitted. It returns the agent's error (nil, or the first
// failure it saw), [ErrStopped] if it was stopped first, or ctx.Err() if ctx
// ends first. Wait does not poll. Without Close, Wait returns only when ctx
// ends or the agent is stopped.
//
// A finished agent still answers Status until it is stopped: its actor stays
// on the runtime until [Handle.Stop] or [Runtime.Shutdown] releases it. A
// program that starts many short-lived agents on one runtime stops each one
// after Wait.
func (h *Handle[I, V]) Wait(ctx context.Context) error {
	select {
	case <-h.done:
		return h.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Done returns a channel that is closed when the agent has finished, failed
// or stopped; Wait then returns at once.
func (h *Handle[I, V]) Done() <-chan struct{} { return h.done }

// Status returns a snapshot of the agent's state, as the agent sees it
// between two messages. It returns [ErrClosed] once the agent has stopped or
// failed, and ctx.Err() if ctx ends first or has already ended (then the
// agent is not asked). It costs one actor round trip.
func (h *Handle[I, V]) Status(ctx context.Context) (V, error) {
	var zero V
	if err := ctx.Err(); err != nil {
		return zero, err
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
	if !h.post(Query{ID: id}) {
		return zero, ErrClosed
	}
	select {
	case v := <-reply:
		return v, nil
	case <-h.gone:
		return zero, ErrClosed
	case <-ctx.Done():
		return zero, ctx.Err()
	}
}

// LogStatus asks the agent to write its status to the runtime's logger, as
// one structured zerolog event at info level with the fields "agent", "pid"
// and "status". It does not wait for the event to be written; a Status call
// made afterwards returns only after it has been.
func (h *Handle[I, V]) LogStatus() {
	h.post(Query{ID: 0})
}

// Stop ends the agent now: posted items not yet taken in are dropped, the
// context of running work is cancelled, and pending timers are disarmed. It
// waits until every goroutine the agent started has returned, or returns
// ctx.Err() if ctx ends first (work that ignores its context keeps running
// until it returns). For a graceful end, Close and Wait first. Stop is
// idempotent.
func (h *Handle[I, V]) Stop(ctx context.Context) error {
	h.stopOnce.Do(func() {
		h.in.mu.Lock()
		h.in.closed, h.in.stopped = true, true
		h.in.refill()
		h.in.mu.Unlock()
		h.cancel()
		if err := h.rt.system.Root.StopFuture(h.pid).Wait(); err != nil {
			h.stopErr = fmt.Errorf("agent %s: stopping the actor: %w", h.name, err)
		}
		h.finish(ErrStopped)
		h.goneOnce.Do(func() { close(h.gone) })
		h.wmu.Lock()
		h.settle()
		h.wmu.Unlock()
		h.rt.release(h)
	})
	select {
	case <-h.idle:
		return h.stopErr
	case <-ctx.Done():
		return ctx.Err()
	}
}

// isStopped reports whether Stop has been called.
func (h *Handle[I, V]) isStopped() bool {
	h.in.mu.Lock()
	defer h.in.mu.Unlock()
	return h.in.stopped
}

// notify unlocks the inbox, which the caller locked to add to it, and wakes
// the actor if it was idle.
func (h *Handle[I, V]) notify() {
	wake := h.in.schedule()
	h.in.mu.Unlock()
	if wake {
		h.wake()
	}
}

// wake tells the actor to take in its inbox.
func (h *Handle[I, V]) wake() { h.rt.system.Root.Send(h.pid, wake{}) }

// post hands m to the agent unless it has stopped, and reports whether it
// did. Timers and queries use it, so nothing lands in protoactor's dead
// letters after Stop.
func (h *Handle[I, V]) post(m any) bool {
	h.in.mu.Lock()
	if h.in.stopped {
		h.in.mu.Unlock()
		return false
	}
	h.in.add(m)
	h.notify()
	return true
}

// grant returns n input slots. An agent that gives back more than it took
// has a bug: the surplus is dropped, so the bound holds, and logged.
func (h *Handle[I, V]) grant(n int) {
	h.in.mu.Lock()
	h.in.credits += n
	surplus := h.in.credits - h.in.bound
	if surplus > 0 {
		h.in.credits = h.in.bound
	}
	h.in.refill()
	h.in.mu.Unlock()
	if surplus > 0 {
		h.log.Warn().Int("surplus", surplus).Msg("agent gave back more input slots than it took")
	}
}

// answer completes the Status call with this id; id 0 is LogStatus's.
func (h *Handle[I, V]) answer(id uint64, v V) {
	if id == 0 {
		ev := h.log.Info()
		if m, ok := any(v).(zerolog.LogObjectMarshaler); ok {
			ev = ev.Object("status", m)
		} else {
			ev = ev.Interface("status", v)
		}
		ev.Msg("status")
		return
	}
	h.qmu.Lock()
	reply, ok := h.pending[id]
	h.qmu.Unlock()
	if ok {
		reply <- v
	}
}

// finish records the agent's outcome once and releases Wait.
func (h *Handle[I, V]) finish(err error) {
	h.doneOnce.Do(func() {
		if p := h.sinkErr.Load(); p != nil {
			err = errors.Join(err, *p)
		}
		h.err = err
		close(h.done)
	})
}

// sinkFailed records the first panic of the sink for Wait.
func (h *Handle[I, V]) sinkFailed(err error) {
	h.sinkErr.CompareAndSwap(nil, &err)
}

// breakDown ends an agent whose evolve panicked: input closes, Wait and
// Status return err.
func (h *Handle[I, V]) breakDown(err error) {
	h.in.mu.Lock()
	h.in.closed = true
	h.in.refill()
	h.in.mu.Unlock()
	h.finish(err)
	h.goneOnce.Do(func() { close(h.gone) })
}

// working counts one more running work goroutine.
func (h *Handle[I, V]) working() {
	h.wmu.Lock()
	h.running++
	h.workers++
	h.wmu.Unlock()
}

// worked counts one work goroutine less, and closes idle when the agent is
// stopped and none runs.
func (h *Handle[I, V]) worked() {
	h.wmu.Lock()
	defer h.wmu.Unlock()
	h.running--
	h.settle()
}

// settle closes idle once the agent is stopped and no work runs. The caller
// holds wmu.
func (h *Handle[I, V]) settle() {
	if h.isStopped() && h.running == 0 && !h.idleDone {
		h.idleDone = true
		close(h.idle)
	}
}

// status is Status for callers that do not know V.
func (h *Handle[I, V]) status(ctx context.Context) (any, error) {
	v, err := h.Status(ctx)
	if err != nil {
		return nil, err
	}
	return v, nil
}

// pull grants the agent demand for n more values.
func (h *Handle[I, V]) pull(n int) {
	h.in.mu.Lock()
	if h.in.stopped {
		h.in.mu.Unlock()
		return
	}
	h.in.pull = min(h.in.pull+n, Unbounded)
	h.notify()
}

// feed passes items on to the agent from the agent before it, which holds
// demand for them: no credit is spent.
func (h *Handle[I, V]) feed(items []I) {
	if len(items) == 0 {
		return
	}
	h.in.mu.Lock()
	if h.in.stopped {
		h.in.mu.Unlock()
		return
	}
	h.in.put(items...)
	h.notify()
}
