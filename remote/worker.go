package remote

import (
	"context"
	"errors"
	"fmt"
	"github.com/evolvekit/evolve/codec"
	"log/slog"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/evolvekit/evolve/internal/fifo"
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
	// Advertise, when not empty, is the address the master reaches the
	// worker at, if not Listen's: a proxy's or a NAT's, which forwards to
	// Listen. A host and port, such as "10.0.0.7:7071".
	Advertise string
	// Codec must be the master's. Default codec.JSON.
	Codec codec.Codec
	// Connect bounds how long the worker tries to reach the master and be
	// registered before Work fails with ErrUnreachable. Default
	// DefaultConnect.
	Connect time.Duration
	// TLS makes the worker talk to its master over mutual TLS, as the
	// master's node does with WithTLS: see [TLS]. Its certificate must
	// name the host of Listen, where the master dials it.
	TLS TLS
	// AllowInsecure lets the worker reach a master, or listen, off the
	// loopback without TLS, as the option of the same name lets a node.
	AllowInsecure bool
	// Rejoin bounds how long a worker that lost its master (its connection
	// broke, or it heard nothing from it for three heartbeats) tries to
	// register again, with backoff, before Work fails with ErrMasterGone.
	// It rejoins a master restarted at the same address as well. Default
	// DefaultRejoin.
	Rejoin time.Duration
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

// The defaults of WorkerConfig.
const (
	DefaultConnect = 5 * time.Second
	DefaultRejoin  = time.Minute
)

// addrs returns the addresses the worker's connections use: where it
// listens, where the master reaches it, and the master's.
func (c WorkerConfig) addrs() []string {
	if c.Advertise != "" {
		return []string{c.Listen, c.Advertise, c.Master}
	}
	return []string{c.Listen, c.Master}
}

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
	case c.Rejoin < 0:
		return invalid("rejoin must not be negative, got %v", c.Rejoin)
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
		c.Codec = codec.JSON
	}
	if c.Connect == 0 {
		c.Connect = DefaultConnect
	}
	if c.Rejoin == 0 {
		c.Rejoin = DefaultRejoin
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
// Worker and master hear from each other at least once a heartbeat
// (Config.Heartbeat). A worker that loses its master, because a connection
// between them broke or it heard nothing for three heartbeats, registers
// again for up to cfg.Rejoin, and rejoins a master restarted at the same
// address as well: the items it held are given back (their work sees its
// context end), and it takes new ones.
//
// Work returns nil once the master says the stage has finished, or once
// ctx ends: then the worker leaves gracefully, handing back the items it
// holds (the work running on them sees its context end at once, and what
// it returns then is not sent, but for a success). It returns an error
// wrapping ErrMasterGone when the master goes away first and does not come
// back within cfg.Rejoin, and one wrapping ErrUnreachable, naming the
// address, when it cannot reach the master, the TLS handshake with it
// fails (saying which side refused which certificate), or it is not
// registered within cfg.Connect.
//
// Work returns at most cfg.Grace after ctx ends, or after the stage
// finished or the master went (or, should the master take longer to
// acknowledge that the worker leaves, once it has, within cfg.Connect),
// and at most half a second more for its node to close, even if the
// master stopped answering or a work call ignores its context: such a
// call is abandoned, to run on in its goroutine until it returns, its
// result dropped, and Work's error wraps ErrAbandoned and names its item.
func Work[I, O any](ctx context.Context, cfg WorkerConfig, work func(ctx context.Context, in I) (O, error)) error {
	if err := cfg.validate(); err != nil {
		return err
	}
	if work == nil {
		return invalid("work must not be nil")
	}
	cfg = cfg.withDefaults()
	creds, err := security{tls: cfg.TLS, insecure: cfg.AllowInsecure}.credentials(cfg.addrs()...)
	if err != nil {
		return err
	}
	if err := reach(ctx, cfg.Master, cfg.Connect, creds); err != nil {
		return err
	}

	tally := guard.NewTally(refusalEvery, func(counts map[string]int, last string) {
		slog.Warn("remote: the worker refused messages from peers", "refused", counts[""], "last", last)
	})
	defer tally.Stop()
	g := guard.New(wirePackage, func(why string) { tally.Add("", why) })
	sys, halt, err := start(cfg.Listen, cfg.Advertise, g, creds)
	if err != nil {
		return err
	}
	defer halt()

	workCtx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w := &worker[I, O]{
		cfg:    cfg,
		work:   work,
		ctx:    workCtx,
		sys:    sys,
		guard:  g,
		master: actor.NewPID(cfg.Master, cfg.Stage),
		line:   newLine(cfg.Slots, cfg.Slots+cfg.Prefetch),
		ended:  make(chan error, 1),
		over:   make(chan struct{}),
		ready:  make(chan error, 1),
		live:   make([]atomic.Uint64, cfg.Slots),
		idle:   make(chan struct{}),
	}
	w.genCtx, w.stopWork = context.WithCancel(workCtx)
	w.later = time.AfterFunc(time.Hour, w.flushLater)
	w.later.Stop()
	defer w.later.Stop()
	w.clock = time.AfterFunc(time.Hour, func() { w.sys.Root.Send(w.self, clockTick{}) })
	w.clock.Stop()
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
	w.clock.Stop()
	w.probes.Wait()
	w.line.close()
	if err := w.settle(deadline); err != nil {
		return errors.Join(result, err)
	}
	return result
}

// answer is one task's result; its value's bytes wait in the worker's
// values, after those of the answers before it.
type answer struct {
	item    uint64
	attempt uint32
	size    uint32 // of the value's bytes
	gen     uint64 // the worker's generation the task came in
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
	guard  *guard.Guard // the node's
	master *actor.PID
	self   *actor.PID
	line   *line           // the tasks taken and not started: Slots + Prefetch at most
	batch  []job           // take's, reused
	probes sync.WaitGroup  // the checks that the master's address answers
	left   atomic.Int64    // the slots that have not returned
	idle   chan struct{}   // closed once every slot has returned
	live   []atomic.Uint64 // by slot, 1 + the item its work runs on, or 0
	ahead  int             // the prefetch asked for: the least of the master's grant and cfg.Prefetch

	// gate is held to read closed, and to send the actor a message from
	// outside it; closed is set once Work returns without a slot.
	gate   sync.RWMutex
	closed bool

	id      uint64
	inc     uint64                // the incarnation of the master it joined
	held    fifo.Numbered[uint32] // the items handed to it and not answered: their attempts
	owed    int                   // the tasks handed to it whose answers have not been sent or dropped
	joined  bool
	leaving bool
	ready   chan error // the registration's outcome

	// Liveness (pulse.go) and rejoining (rejoin.go).
	clock     *time.Timer   // sends the actor a tick
	every     time.Duration // the heartbeat interval
	heard     bool          // from the master, since the last tick
	sent      bool          // to the master, since the last tick
	quiet     int           // ticks in a row that heard nothing
	rejoining bool
	why       string    // why the master was lost
	until     time.Time // when rejoining gives up
	backoff   time.Duration
	tries     uint64 // attempts to rejoin
	nonce     uint64 // of the latest Register
	gen       uint64 // joins since the worker started
	genCtx    context.Context
	stopWork  context.CancelFunc // ends genCtx, that of the work of this generation

	ended chan error // why the worker ends: nil for the stage finished
	// over is closed once the master said the stage finished; the worker
	// then ends when the master's link stops, so that its answer to the
	// news has left before its node closes.
	over     chan struct{}
	finished bool

	running atomic.Int64 // tasks handed to the slots and not ended

	mu        sync.Mutex
	pending   []answer
	values    []byte      // the bytes of the pending answers' values, end to end
	spare     []answer    // the memory of the answers sent last, for the next; the actor's
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
		w.register(ctx)
	case *wire.Welcome:
		w.heard = true
		w.welcome(ctx, m)
	case *wire.Tasks:
		w.heard = true
		w.take(m)
	case flush:
		w.send(ctx)
	case *wire.Pulse:
		w.heard = true
		w.pulsed(ctx, m)
	case clockTick:
		w.ticked(ctx)
	case probed:
		w.probedAt(ctx, m)
	case leave:
		w.leave(ctx)
	case *wire.Finished:
		w.heard = true
		if ctx.Sender() != nil {
			ctx.Respond(&wire.Finished{})
		}
		if !w.finished {
			w.finished = true
			close(w.over)
		}
	case *actor.Terminated:
		if m.Who.Equal(w.master) {
			w.gone(ctx, m)
		}
	}
}

// welcome takes the master's answer to the latest registration: the
// worker asks for as many items as it has free slots, and its heartbeat
// starts.
func (w *worker[I, O]) welcome(ctx actor.Context, m *wire.Welcome) {
	if w.joined || w.leaving || m.Nonce != w.nonce {
		return
	}
	if m.Refused != "" {
		err := fmt.Errorf("remote: the master at %s refused the worker: %s", w.cfg.Master, m.Refused)
		if !w.rejoining {
			w.ready <- err
		} else if m.Refused == stageFinished {
			w.end(nil)
		} else {
			w.end(err)
		}
		return
	}
	if w.rejoining {
		w.rejoined(m)
	} else {
		slog.Debug("remote: the worker joined its master", "master", w.cfg.Master, "worker", m.Worker)
	}
	w.joined, w.id, w.inc = true, m.Worker, m.Incarnation
	w.every, w.quiet, w.heard, w.sent = interval(m), 0, true, false
	w.guard.SetQuiet(heartbeatMisses * w.every) // see Node.quiet
	if free := w.cfg.Slots + w.granted(m) - w.owed; free > 0 {
		w.tell(ctx, &wire.Ask{Worker: w.id, N: uint32(free), Incarnation: w.inc})
	}
	w.clock.Reset(w.every)
	select {
	case w.ready <- nil:
	default:
	}
}

// take hands the tasks of m to the slots, which decode them. Tasks for an
// earlier join of the worker, or another run of the stage, are dropped:
// the master has taken them back.
func (w *worker[I, O]) take(m *wire.Tasks) {
	if w.leaving || !w.joined || m.Incarnation != w.inc || m.Worker != w.id || len(m.Items) != len(m.Attempts) || len(m.Items) != len(m.Sizes) {
		return
	}
	pieces, ok := wire.Pieces(m.Sizes, m.Values)
	if !ok {
		return
	}
	w.owed += len(m.Items)
	jobs := w.batch[:0]
	for i, item := range m.Items {
		w.held.Put(item, m.Attempts[i])
		jobs = append(jobs, job{item: item, attempt: m.Attempts[i], data: pieces[i], gen: w.gen, ctx: w.genCtx})
	}
	w.running.Add(int64(len(jobs)))
	n := w.line.put(jobs)
	for _, j := range jobs[n:] {
		w.running.Add(-1)
		// The master gave more than the free slots and the prefetch:
		// refuse it.
		w.done(answer{item: j.item, attempt: j.attempt, gen: j.gen, failed: true, err: fmt.Sprintf("remote: worker %d was handed item %d with no room for it", w.id, j.item)}, nil)
	}
	clear(jobs)
	w.batch = jobs[:0]
}

// slot runs the work on one task at a time until the worker ends; once
// the work's context has ended, it starts none: the worker hands back the
// items it has not done. Slot i notes in live[i] the item it is at. It
// decodes items and encodes results through values of its own, reused, so
// that a task of a small type costs no allocation.
func (w *worker[I, O]) slot(i int) {
	defer w.quit()
	wake := make(chan struct{}, 1)
	in, out := new(I), new(O)
	var buf []byte
	for {
		j, ok := w.line.take(wake)
		if !ok {
			return
		}
		o := answer{item: j.item, attempt: j.attempt, gen: j.gen}
		if err := j.ctx.Err(); err != nil {
			// The worker leaves, or lost its master: the item goes back,
			// and this answer, never sent, only frees its place.
			o.failed, o.err = true, err.Error()
			w.running.Add(-1)
			w.done(o, nil)
			continue
		}
		buf = w.run(i, j, in, out, buf[:0], &o)
		w.running.Add(-1)
		w.done(o, buf)
		if cap(buf) > slotBuffer {
			buf = nil
		}
	}
}

// slotBuffer bounds the memory a slot keeps to encode results in.
const slotBuffer = 64 << 10

// run decodes j's item into in, runs the work on it in slot i and encodes
// its result, through out, into buf, which it returns; a failure goes in
// o, with no bytes.
func (w *worker[I, O]) run(i int, j job, in *I, out *O, buf []byte, o *answer) []byte {
	var noIn I
	var noOut O
	*in = noIn
	if err := w.cfg.Codec.Decode(j.data, in); err != nil {
		o.failed, o.err = true, fmt.Sprintf("remote: decoding item %d: %v", j.item, err)
		return buf
	}
	w.live[i].Store(j.item + 1)
	v, err := w.call(j.ctx, *in)
	w.live[i].Store(0)
	*in = noIn
	if err == nil {
		*out = v
		buf, err = w.cfg.Codec.Append(buf, out)
		*out = noOut
	}
	if err != nil {
		o.failed, o.err = true, err.Error()
		return buf[:0]
	}
	return buf
}

// call runs the work on one item, turning a panic into an error.
func (w *worker[I, O]) call(ctx context.Context, in I) (v O, err error) {
	defer safe.Recover(&err)
	return w.work(ctx, in)
}

// done adds an answer, whose value's bytes are data, to those to send. It asks the actor to send them
// when enough have gathered or no slot is busy, and otherwise makes sure
// they go within flushSpan; results that end while a message is on its way
// go together in the next.
func (w *worker[I, O]) done(o answer, data []byte) {
	idle := w.running.Load() == 0
	w.mu.Lock()
	o.size = uint32(len(data))
	w.values = append(w.values, data...)
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
// The answers of an earlier generation are dropped, and free their slots
// all the same; while the worker rejoins, all are.
func (w *worker[I, O]) send(ctx actor.Context) {
	w.mu.Lock()
	out, values := w.pending, w.values
	w.pending, w.values, w.scheduled = w.spare, make([]byte, 0, len(values)), false
	w.mu.Unlock()
	w.owed -= len(out)
	if !w.leaving && w.joined && len(out) > 0 {
		w.tell(ctx, w.results(out, values))
	}
	clear(out)
	w.spare = out[:0]
}

// results puts the answers out, whose values' bytes are values, in a
// message, but for those it drops: of an earlier generation, or failures
// once the work's context has ended (no attempt's: the item is handed
// back as the worker leaves). The message keeps values.
func (w *worker[I, O]) results(out []answer, values []byte) *wire.Results {
	n := len(out)
	msg := &wire.Results{Worker: w.id, Ask: uint32(n), Incarnation: w.inc,
		Items: make([]uint64, 0, n), Attempts: make([]uint32, 0, n), Sizes: make([]uint32, 0, n)}
	quit := w.ctx.Err() != nil
	from, to := 0, 0
	for _, o := range out {
		data := values[from : from+int(o.size)]
		from += int(o.size)
		if _, ok := w.held.Get(o.item); !ok || o.gen != w.gen || quit && o.failed {
			continue
		}
		w.held.Delete(o.item)
		to += copy(values[to:], data)
		msg.Items = append(msg.Items, o.item)
		msg.Attempts = append(msg.Attempts, o.attempt)
		msg.Sizes = append(msg.Sizes, o.size)
		if o.failed {
			msg.Failed = append(msg.Failed, uint32(len(msg.Items)-1))
			msg.Errors = append(msg.Errors, o.err)
		}
	}
	msg.Values = values[:to]
	return msg
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
	handed := make([]uint64, 0, w.held.Len())
	for item := range w.held.All() {
		handed = append(handed, item)
	}
	w.tell(ctx, &wire.Leave{Worker: w.id, Handed: handed, Incarnation: w.inc})
}

// gone takes the news that the master's actor ended. A master that
// stopped has ended its stage (its Finished may come after this news, or
// not at all); one whose node went away, or whose connection broke, is
// lost, and the worker rejoins it. Before the worker is welcomed, the news
// means that no such stage runs there: protoactor's remote reports a stage
// that never ran as stopped too. While the worker rejoins, the news is of
// an attempt, and the next one follows.
func (w *worker[I, O]) gone(ctx actor.Context, m *actor.Terminated) {
	switch {
	case w.rejoining:
		return
	case w.joined && !w.finished && !w.leaving && m.Why != actor.TerminatedReason_Stopped:
		w.lose(ctx, fmt.Sprintf("it stopped answering (%v)", m.Why))
		return
	}
	if !w.joined {
		if m.Why != actor.TerminatedReason_Stopped && !w.finished && !w.leaving {
			// The master went away before its Welcome came (killed, say,
			// as it was starting): register again, as a rejoin does; Work
			// gives up once WorkerConfig.Connect has passed with no
			// Welcome.
			w.lose(ctx, fmt.Sprintf("it stopped answering before the worker joined (%v)", m.Why))
			return
		}
		err := fmt.Errorf("%w: no stage named %q runs at %s (or it ended before the worker joined)", ErrUnreachable, w.cfg.Stage, w.cfg.Master)
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

// end says why the worker ends, once. A worker that ends with no master
// to tell stops it from being told.
func (w *worker[I, O]) end(err error) {
	if !w.joined {
		w.unwatched()
	}
	select {
	case w.ended <- err:
	default:
	}
}
