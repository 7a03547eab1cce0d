// Package worker is a remote stage's worker process: it registers with the
// master, pulls tasks while it has room, runs the work on them in its
// slots and sends their outcomes back. Its protocol with the master
// (joining, heartbeats, losing the master and rejoining it, leaving) is a
// pure [Session], stepped by the events its actor sees, at instants of an
// injected clock; the actor performs what the session asks. The data path
// (the line of tasks, the slots, the outcomes gathered into messages) is
// the actor's and its slots' own.
package worker

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/internal/fifo"
	"github.com/evolvekit/evolve/remote/internal/guard"
	"github.com/evolvekit/evolve/remote/internal/node"
	"github.com/evolvekit/evolve/remote/internal/wire"
	"github.com/rs/zerolog"
	otrace "go.opentelemetry.io/otel/trace"
)

// Config is a worker's settings, every one given: package remote checks
// them and fills in its defaults (its WorkerConfig's doc says what each
// means).
type Config struct {
	Master, Stage     string
	Slots, Prefetch   int
	Tags              []string
	Listen, Advertise string
	Append            func(dst []byte, v any) ([]byte, error) // the codec's
	Decode            func(data []byte, v any) error          // the codec's
	Connect, Rejoin   time.Duration
	Grace             time.Duration
	Health            string                // where to serve the worker's health, or ""
	EndWhenWedged     bool                  // end Run with ErrWedged once wedged
	TLS               *tls.Config           // checked, or nil for none
	MaxMessage        int                   // the most bytes of a message
	Traces            otrace.TracerProvider // traces the work (see trace.go), or nil for none
	Log               zerolog.Logger
	Clock             agent.Clock // nil for package time's
}

// systemClock is package time's clock, a worker's unless told otherwise.
type systemClock struct{}

func (systemClock) Now() time.Time { return time.Now() }

func (systemClock) AfterFunc(d time.Duration, f func()) func() bool { return time.AfterFunc(d, f).Stop }

// Run makes this process a worker of the stage cfg names, running work on
// each task, until the stage finishes, ctx ends (then it leaves), or the
// master goes for good: package remote's Work, whose doc says what it
// returns when.
func Run[I, O any](ctx context.Context, cfg Config, work func(ctx context.Context, in I) (O, error)) error {
	if err := reach(ctx, cfg.Master, cfg.Connect, cfg.TLS); err != nil {
		return err
	}
	if cfg.Clock == nil {
		cfg.Clock = systemClock{}
	}
	tally := guard.NewTally(node.RefusalEvery, func(counts map[string]int, last string) {
		cfg.Log.Warn().Int("refused", counts[""]).Str("last", last).Msg("remote: the worker refused messages from peers")
	})
	defer tally.Stop()
	g := guard.New(node.WirePackage, func(why string) { tally.Add("", why) })
	sys, halt, err := node.Start(cfg.Listen, cfg.Advertise, g, cfg.TLS, cfg.MaxMessage)
	if err != nil {
		return err
	}
	defer halt()

	workCtx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w := newWorker(cfg, work, workCtx, sys, g)
	defer w.stopTimers()
	stopHealth, err := w.serveHealth(cfg.Health)
	if err != nil {
		return err
	}
	defer stopHealth()
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
	w.stopTimers()
	w.probes.Wait()
	w.line.close()
	if err := w.settle(deadline); err != nil {
		return errors.Join(result, err)
	}
	return result
}

// worker is the actor of one worker process, and the state its slots
// share. Its fields are touched only by the actor, but for what mu and
// gate guard and the atomics.
type worker[I, O any] struct {
	cfg     Config
	work    func(ctx context.Context, in I) (O, error)
	ctx     context.Context // the work's; cancelled as ctx or Run ends
	sys     *actor.ActorSystem
	guard   *guard.Guard // the node's
	master  *actor.PID
	self    *actor.PID
	limit   int // the most bytes of a message to the master: its bound, or the worker's if smaller
	session *Session
	line    *line           // the tasks taken and not started: Slots + Prefetch at most
	batch   []task          // take's, reused
	probes  sync.WaitGroup  // the checks that the master's address answers
	left    atomic.Int64    // the slots that have not returned
	idle    chan struct{}   // closed once every slot has returned
	live    []atomic.Uint64 // by slot, 1 + the item its work runs on, or 0

	// gate is held to read closed, and to send the actor a message from
	// outside it; closed is set once Run returns without a slot.
	gate   sync.RWMutex
	closed bool

	held     fifo.Numbered[uint32] // the items handed to it and not answered: their attempts
	owed     int                   // the tasks handed to it whose outcomes have not been sent or dropped
	gen      uint64                // joins since the worker started
	genCtx   context.Context       // the work's of this generation
	stopWork context.CancelFunc    // ends genCtx
	tick     func() bool           // cancels the tick pending, if any

	ready chan error // the registration's outcome
	ended chan error // why the worker ends: nil for the stage finished
	// over is closed once the master said the stage finished; the worker
	// then ends when the master's link stops, so that its answer to the
	// news has left before its node closes.
	over chan struct{}

	seen   []running              // what the actor last saw of each slot (see health.go)
	wedged atomic.Pointer[string] // why the worker is wedged, or nil

	running atomic.Int64 // tasks handed to the slots and not ended
	untimed atomic.Bool  // the master needs not know what each task's work took
	out     outbox       // the outcomes that ended and wait to be sent
	tracing *tracing     // nil for a worker that starts no span
}

// newWorker returns the worker cfg describes, whose work runs under ctx.
func newWorker[I, O any](cfg Config, work func(ctx context.Context, in I) (O, error), ctx context.Context, sys *actor.ActorSystem, g *guard.Guard) *worker[I, O] {
	w := &worker[I, O]{
		cfg:     cfg,
		work:    work,
		ctx:     ctx,
		sys:     sys,
		guard:   g,
		master:  actor.NewPID(cfg.Master, cfg.Stage),
		limit:   cfg.MaxMessage,
		session: NewSession(SessionConfig{Master: cfg.Master, Stage: cfg.Stage, Slots: cfg.Slots, Prefetch: cfg.Prefetch, Rejoin: cfg.Rejoin, Connect: cfg.Connect}, rand.Uint64()),
		line:    newLine(cfg.Slots, cfg.Slots+cfg.Prefetch),
		ended:   make(chan error, 1),
		over:    make(chan struct{}),
		ready:   make(chan error, 1),
		live:    make([]atomic.Uint64, cfg.Slots),
		idle:    make(chan struct{}),
		tracing: newTracing(cfg, sys.Address()),
	}
	w.genCtx, w.stopWork = context.WithCancel(ctx)
	w.left.Store(int64(cfg.Slots))
	w.out.init(w.wake)
	return w
}

// await waits for the registration, then for the end: the stage finished,
// the master gone, or ctx ended, when the worker leaves.
func (w *worker[I, O]) await(ctx context.Context, sys *actor.ActorSystem, pid *actor.PID) error {
	// The session gives up joining once cfg.Connect has passed; this
	// timer stands behind it.
	timer := time.NewTimer(w.cfg.Connect + rejoinMost)
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
		// it does once every worker answered the news (or
		// wire.FinishWait passed), so that this worker's answer is not
		// lost as its node closes.
		timer.Reset(2 * wire.FinishWait)
		select {
		case <-w.ended:
		case <-timer.C:
		}
		return nil
	case <-ctx.Done():
	}
	sys.Root.Send(pid, quit{})
	timer.Reset(w.cfg.Connect)
	select {
	case <-w.ended:
	case <-w.over: // the master's Finished acknowledged the Leave
	case <-timer.C:
	}
	return nil
}
