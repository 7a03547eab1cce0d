package remote

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/evolvekit/evolve/internal/safe"
	"github.com/evolvekit/evolve/remote/internal/guard"
	"github.com/evolvekit/evolve/remote/internal/wire"
)

// WorkerConfig tells [Work] where its master is and what the worker offers.
type WorkerConfig struct {
	// Master is the address of the master's node, as [Node.Addr] reports
	// it, such as "127.0.0.1:7070". Required.
	Master string
	// Stage is the name of the stage to work for, its Config.Name. Default
	// "remote".
	Stage string
	// Slots is how many items the worker works on at once. Default
	// runtime.GOMAXPROCS(0).
	Slots int
	// Tags name the resources the worker has: items that need one of them
	// may come to it, as well as items that need none.
	Tags []string
	// Listen is the address the worker answers the master at. Default
	// "127.0.0.1:0": a free port on the loopback; a worker on another
	// machine than its master names a host the master can reach.
	Listen string
	// Codec must be the master's. Default JSON.
	Codec Codec
	// Connect bounds how long the worker tries to reach the master and be
	// registered before Work fails with ErrUnreachable. Default
	// DefaultConnect.
	Connect time.Duration
	// Prefetch is how many items the worker would hold beyond its slots,
	// waiting for one, so that a slot whose work ends finds its next item
	// there instead of waiting a round trip to the master for it. The
	// master grants at most its Config.MaxPrefetch. Default Slots;
	// NoPrefetch asks for none. A worker far from its master, a round trip
	// r away, whose work takes about t, keeps its slots busy with a
	// Prefetch of about Slots × r / t.
	Prefetch int
	// Grace bounds how long Work waits, once its work's context has
	// ended, for the work calls still running to return: a call that
	// ignores its context is abandoned then, and Work returns an error
	// wrapping ErrAbandoned that names its item. Default DefaultGrace.
	Grace time.Duration
}

// DefaultConnect is WorkerConfig.Connect's default.
const DefaultConnect = 5 * time.Second

// DefaultGrace is WorkerConfig.Grace's default.
const DefaultGrace = 10 * time.Second

// validate reports the first setting out of range.
func (c WorkerConfig) validate() error {
	switch {
	case c.Master == "":
		return invalid("master address must not be empty")
	case c.Slots < 0:
		return invalid("slots must not be negative, got %d", c.Slots)
	case c.Connect < 0:
		return invalid("connect must not be negative, got %v", c.Connect)
	case c.Prefetch < NoPrefetch:
		return invalid("prefetch must be NoPrefetch (-1), 0 for the default or positive, got %d", c.Prefetch)
	case c.Grace < 0:
		return invalid("grace must not be negative, got %v", c.Grace)
	}
	for _, t := range c.Tags {
		if t == "" {
			return invalid("tags must not be empty strings")
		}
	}
	return nil
}

// withDefaults fills in the zero settings.
func (c WorkerConfig) withDefaults() WorkerConfig {
	if c.Stage == "" {
		c.Stage = "remote"
	}
	if c.Slots == 0 {
		c.Slots = runtime.GOMAXPROCS(0)
	}
	if c.Listen == "" {
		c.Listen = "127.0.0.1:0"
	}
	if c.Codec == nil {
		c.Codec = JSON
	}
	if c.Connect == 0 {
		c.Connect = DefaultConnect
	}
	switch c.Prefetch {
	case 0:
		c.Prefetch = c.Slots
	case NoPrefetch:
		c.Prefetch = 0
	}
	if c.Grace == 0 {
		c.Grace = DefaultGrace
	}
	return c
}

// Work makes this process a worker of the remote stage cfg names: it
// registers with the master, pulls items whenever it has free slots, runs
// work on each (at most cfg.Slots at once) and sends the results back,
// several to a message when the work is quick. A panic in work fails that
// item with an *agent.PanicError's text.
//
// Work returns nil once the master says the stage has finished, or once
// ctx ends: then the worker leaves gracefully, handing back the items it
// holds (the work running on them sees its context end at once, and what
// it returns then is not sent, but for a success). It returns an error
// wrapping ErrMasterGone when the master goes away first, and one wrapping
// ErrUnreachable, naming the address, when it cannot reach the master or
// be registered within cfg.Connect.
//
// Work returns at most cfg.Grace after ctx ends, or after the stage
// finished or the master went (or, should the master take longer to
// acknowledge that the worker leaves, once it has, within cfg.Connect),
// even if a work call ignores its context: such a call is abandoned, to
// run on in its goroutine until it returns, its result dropped, and
// Work's error wraps ErrAbandoned and names its item.
func Work[I, O any](ctx context.Context, cfg WorkerConfig, work func(ctx context.Context, in I) (O, error)) error {
	if err := cfg.validate(); err != nil {
		return err
	}
	if work == nil {
		return invalid("work must not be nil")
	}
	cfg = cfg.withDefaults()
	// Dial once first, so a master nobody listens for is reported at once,
	// not after protoactor's retries.
	dialer := net.Dialer{Timeout: cfg.Connect}
	conn, err := dialer.DialContext(ctx, "tcp", cfg.Master)
	if err != nil {
		return fmt.Errorf("%w at %s: %v", ErrUnreachable, cfg.Master, err)
	}
	conn.Close()

	tally := guard.NewTally(refusalEvery, func(counts map[string]int, last string) {
		slog.Warn("remote: the worker refused messages from peers", "refused", counts[""], "last", last)
	})
	defer tally.Stop()
	sys, rem, err := start(cfg.Listen, tally)
	if err != nil {
		return err
	}
	defer stop(sys, rem)

	workCtx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w := &worker[I, O]{
		cfg:    cfg,
		work:   work,
		ctx:    workCtx,
		sys:    sys,
		master: actor.NewPID(cfg.Master, cfg.Stage),
		jobs:   make(chan task[I], cfg.Slots+cfg.Prefetch),
		held:   make(map[uint64]uint32),
		ended:  make(chan error, 1),
		over:   make(chan struct{}),
		ready:  make(chan error, 1),
		live:   make([]atomic.Uint64, cfg.Slots),
		idle:   make(chan struct{}),
	}
	w.later = time.AfterFunc(time.Hour, w.flushLater)
	w.later.Stop()
	defer w.later.Stop()
	w.left.Store(int64(cfg.Slots))
	for i := range cfg.Slots {
		go w.slot(i)
	}
	pid := sys.Root.Spawn(actor.PropsFromProducer(func() actor.Actor { return w }))

	ended := make(chan time.Time, 1)
	stopWork := context.AfterFunc(ctx, func() { ended <- time.Now(); cancel() })
	result := w.await(ctx, sys, pid)
	deadline := time.Now().Add(cfg.Grace)
	if !stopWork() {
		deadline = (<-ended).Add(cfg.Grace)
	}
	cancel()
	_ = sys.Root.StopFuture(pid).Wait()
	close(w.jobs)
	if err := w.settle(deadline); err != nil {
		return errors.Join(result, err)
	}
	return result
}

// answer is one task's result, encoded.
type answer struct {
	item    uint64
	attempt uint32
	data    []byte
	err     string
	failed  bool
}

// worker is the actor of one worker process, and the state its slots
// share. Its fields are touched only by the actor, except what mu guards.
type worker[I, O any] struct {
	cfg    WorkerConfig
	work   func(ctx context.Context, in I) (O, error)
	ctx    context.Context // the work's; cancelled as ctx or Work ends
	sys    *actor.ActorSystem
	master *actor.PID
	self   *actor.PID
	jobs   chan task[I]    // the tasks taken and not started: Slots + Prefetch at most
	left   atomic.Int64    // the slots that have not returned
	idle   chan struct{}   // closed once every slot has returned
	live   []atomic.Uint64 // by slot, 1 + the item its work runs on, or 0
	ahead  int             // the prefetch asked for: the least of the master's grant and cfg.Prefetch

	// gate is held to read closed, and to send the actor a message from
	// outside it; closed is set once Work returns without a slot.
	gate   sync.RWMutex
	closed bool

	id      uint64
	held    map[uint64]uint32 // the items handed to it and not answered: their attempts
	joined  bool
	leaving bool
	ready   chan error // the registration's outcome
	ended   chan error // why the worker ends: nil for the stage finished
	// over is closed once the master said the stage finished; the worker
	// then ends when the master's link stops, so that its answer to the
	// news has left before its node closes.
	over     chan struct{}
	finished bool

	running atomic.Int64 // tasks handed to the slots and not ended

	mu        sync.Mutex
	pending   []answer
	scheduled bool        // a flush is on its way to the actor
	timed     bool        // later is armed
	later     *time.Timer // flushes the results that wait for company
}

// Results go back together: a result waits for others until half the slots'
// worth have ended, every slot is idle, or flushSpan has passed since the
// first of them, so quick work sends few messages and slow work loses at
// most flushSpan.
const flushSpan = 200 * time.Microsecond

// Messages the worker's own parts send its actor.
type (
	flush struct{}
	leave struct{}
)

// await registers, then waits for the end: the stage finished, the master
// gone, or ctx ended, when the worker leaves.
func (w *worker[I, O]) await(ctx context.Context, sys *actor.ActorSystem, pid *actor.PID) error {
	timer := time.NewTimer(w.cfg.Connect)
	defer timer.Stop()
	select {
	case err := <-w.ready:
		if err != nil {
			return err
		}
	case <-timer.C:
		return fmt.Errorf("%w at %s: no answer to the registration within %v", ErrUnreachable, w.cfg.Master, w.cfg.Connect)
	case <-ctx.Done():
		return nil
	}
	select {
	case err := <-w.ended:
		return err
	case <-w.over:
		// The stage finished: wait for the master's link to stop, which
		// it does once every worker answered the news (or finishWait
		// passed), so that this worker's answer is not lost as its node
		// closes.
		timer.Reset(2 * finishWait)
		select {
		case <-w.ended:
		case <-timer.C:
		}
		return nil
	case <-ctx.Done():
	}
	sys.Root.Send(pid, leave{})
	timer.Reset(w.cfg.Connect)
	select {
	case <-w.ended:
	case <-w.over: // the master's Finished acknowledged the Leave
	case <-timer.C:
	}
	return nil
}

// Receive implements actor.Actor.
func (w *worker[I, O]) Receive(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case *actor.Started:
		w.self = ctx.Self()
		// Watching first: a master that goes away before it answers is
		// seen at once.
		ctx.Watch(w.master)
		ctx.Request(w.master, &wire.Register{Stage: w.cfg.Stage, Slots: uint32(w.cfg.Slots), Tags: w.cfg.Tags})
	case *wire.Welcome:
		w.welcome(ctx, m)
	case *wire.Tasks:
		w.take(m)
	case flush:
		w.send(ctx)
	case leave:
		w.leave(ctx)
	case *wire.Finished:
		if ctx.Sender() != nil {
			ctx.Respond(&wire.Finished{})
		}
		if !w.finished {
			w.finished = true
			close(w.over)
		}
	case *actor.Terminated:
		if m.Who.Equal(w.master) {
			w.gone(m)
		}
	}
}

// welcome takes the master's answer to the registration.
func (w *worker[I, O]) welcome(ctx actor.Context, m *wire.Welcome) {
	if w.joined {
		return
	}
	if m.Refused != "" {
		w.ready <- fmt.Errorf("remote: the master at %s refused the worker: %s", w.cfg.Master, m.Refused)
		return
	}
	w.joined, w.id = true, m.Worker
	ctx.Request(w.master, &wire.Ask{Worker: w.id, N: uint32(w.cfg.Slots + w.granted(m))})
	w.ready <- nil
}

// take hands the tasks of m to the slots.
func (w *worker[I, O]) take(m *wire.Tasks) {
	if w.leaving || len(m.Items) != len(m.Attempts) || len(m.Items) != len(m.Sizes) {
		return
	}
	pieces, ok := wire.Pieces(m.Sizes, m.Values)
	if !ok {
		return
	}
	for i, item := range m.Items {
		data := pieces[i]
		t := task[I]{Item: item, Attempt: int(m.Attempts[i])}
		w.held[item] = m.Attempts[i]
		if err := w.cfg.Codec.Decode(data, &t.Value); err != nil {
			w.done(answer{item: item, attempt: m.Attempts[i], failed: true, err: fmt.Sprintf("remote: decoding item %d: %v", item, err)})
			continue
		}
		w.running.Add(1)
		select {
		case w.jobs <- t:
		default:
			w.running.Add(-1)
			// The master gave more than the free slots and the
			// prefetch: refuse it.
			w.done(answer{item: item, attempt: m.Attempts[i], failed: true, err: fmt.Sprintf("remote: worker %d was handed item %d with no room for it", w.id, item)})
		}
	}
}

// slot runs the work on one task at a time until the worker ends; once
// the work's context has ended, it starts none: the worker hands back the
// items it has not done. Slot i notes in live[i] the item it is at.
func (w *worker[I, O]) slot(i int) {
	defer w.quit()
	for t := range w.jobs {
		if w.ctx.Err() != nil {
			w.running.Add(-1)
			continue
		}
		o := answer{item: t.Item, attempt: uint32(t.Attempt)}
		w.live[i].Store(t.Item + 1)
		v, err := w.call(t.Value)
		w.live[i].Store(0)
		if err == nil {
			o.data, err = w.cfg.Codec.Append(nil, &v)
		}
		if err != nil {
			o.failed, o.err, o.data = true, err.Error(), nil
		}
		w.running.Add(-1)
		w.done(o)
	}
}

// call runs the work on one item, turning a panic into an error.
func (w *worker[I, O]) call(in I) (v O, err error) {
	defer safe.Recover(&err)
	return w.work(w.ctx, in)
}

// done adds an answer to those to send. It asks the actor to send them
// when enough have gathered or no slot is busy, and otherwise makes sure
// they go within flushSpan; results that end while a message is on its way
// go together in the next.
func (w *worker[I, O]) done(o answer) {
	idle := w.running.Load() == 0
	w.mu.Lock()
	w.pending = append(w.pending, o)
	if w.scheduled {
		w.mu.Unlock()
		return
	}
	if idle || 2*len(w.pending) >= w.cfg.Slots {
		w.scheduled = true
		w.mu.Unlock()
		w.wake()
		return
	}
	arm := !w.timed
	w.timed = true
	w.mu.Unlock()
	if arm {
		w.later.Reset(flushSpan)
	}
}

// flushLater sends the results that waited flushSpan for company.
func (w *worker[I, O]) flushLater() {
	w.mu.Lock()
	w.timed = false
	wake := !w.scheduled && len(w.pending) > 0
	w.scheduled = w.scheduled || wake
	w.mu.Unlock()
	if wake {
		w.wake()
	}
}

// wake asks the actor to send what is pending, unless Work has returned.
// A slot reads w.self only after the actor handed it a task, so after the
// actor set it.
func (w *worker[I, O]) wake() {
	w.gate.RLock()
	defer w.gate.RUnlock()
	if !w.closed {
		w.sys.Root.Send(w.self, flush{})
	}
}

// send sends the master the answers pending, and asks for as many items.
func (w *worker[I, O]) send(ctx actor.Context) {
	w.mu.Lock()
	out := w.pending
	w.pending, w.scheduled = nil, false
	w.mu.Unlock()
	if w.leaving || len(out) == 0 {
		return
	}
	msg := &wire.Results{Worker: w.id, Ask: uint32(len(out))}
	size := 0
	for _, o := range out {
		size += len(o.data)
	}
	msg.Values = make([]byte, 0, size)
	quit := w.ctx.Err() != nil
	for _, o := range out {
		if _, ok := w.held[o.item]; !ok || quit && o.failed {
			// Once the work's context has ended, a failure is no
			// attempt's: the item is handed back as the worker leaves.
			continue
		}
		delete(w.held, o.item)
		msg.Items = append(msg.Items, o.item)
		msg.Attempts = append(msg.Attempts, o.attempt)
		msg.Sizes = append(msg.Sizes, uint32(len(o.data)))
		msg.Values = append(msg.Values, o.data...)
		if o.failed {
			msg.Failed = append(msg.Failed, uint32(len(msg.Items)-1))
			msg.Errors = append(msg.Errors, o.err)
		}
	}
	ctx.Request(w.master, msg) // with its sender, which the master checks
}

// leave sends the results that have ended, hands back what the worker still
// holds and says it goes; the master's Finished acknowledges it. Results
// that end later are not sent: the master requeues everything still leased
// to a worker that left.
func (w *worker[I, O]) leave(ctx actor.Context) {
	if w.leaving || !w.joined {
		w.end(nil)
		return
	}
	// The results that have ended go first; what is left is handed back.
	w.send(ctx)
	w.leaving = true
	handed := make([]uint64, 0, len(w.held))
	for item := range w.held {
		handed = append(handed, item)
	}
	ctx.Request(w.master, &wire.Leave{Worker: w.id, Handed: handed})
}

// gone takes the news that the master's actor ended. A master that
// stopped has ended its stage (its Finished may come after this news, or
// not at all); one whose node went away is gone. Before the worker is
// welcomed, the news means that no such stage runs there: protoactor's
// remote reports a stage that never ran as stopped too.
func (w *worker[I, O]) gone(m *actor.Terminated) {
	if !w.joined {
		err := fmt.Errorf("%w: no stage named %q runs at %s (or it ended before the worker joined)", ErrUnreachable, w.cfg.Stage, w.cfg.Master)
		if m.Why != actor.TerminatedReason_Stopped {
			err = fmt.Errorf("%w: %s stopped answering (%v)", ErrUnreachable, w.cfg.Master, m.Why)
		}
		select {
		case w.ready <- err:
		default:
		}
		return
	}
	var err error
	if m.Why != actor.TerminatedReason_Stopped && !w.finished {
		err = fmt.Errorf("%w: %s stopped answering (%v)", ErrMasterGone, w.cfg.Master, m.Why)
	}
	w.end(err)
}

// end says why the worker ends, once.
func (w *worker[I, O]) end(err error) {
	select {
	case w.ended <- err:
	default:
	}
}
