package remote

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/evolvekit/evolve/remote/internal/wire"
)

// A worker that loses its master (the connection broke either way, the
// master heard nothing from it and gave it up, or it heard nothing from the
// master for heartbeatMisses intervals) registers again, with backoff,
// until WorkerConfig.Rejoin has passed; then Work fails with
// ErrMasterGone. What it held is given back: the master queues it again
// (as a lost or a leaving worker's), so the worker cancels that work and
// drops its results. Each join is a generation of the worker: a task
// carries the generation it came in, and an answer of an earlier one is
// never sent. The master it rejoins may be another run of the stage (a
// master restarted at the same address): its Welcome names another
// incarnation, and the worker's messages name the new one.

// Rejoining backs off from rejoinFirst to rejoinMost between attempts.
const (
	rejoinFirst = 50 * time.Millisecond
	rejoinMost  = time.Second
)

// job is a task as the worker's slots take it, its item's bytes not yet
// decoded: with the generation it came in, and the context its work runs
// under, which ends when the worker loses its master.
type job struct {
	item    uint64
	attempt uint32
	data    []byte
	gen     uint64
	ctx     context.Context
}

// Messages the worker's own parts send its actor.
type (
	// clockTick is the worker's clock: a heartbeat while it is joined, a
	// new attempt while it rejoins.
	clockTick struct{}
	// probed says whether the master's address took a connection, in the
	// attempt to rejoin numbered attempt.
	probed struct {
		attempt uint64
		err     error
	}
)

// lose starts rejoining a master the worker lost, for why: it cancels the
// work it holds and drops its results, and tries at once.
func (w *worker[I, O]) lose(ctx actor.Context, why string) {
	slog.Warn("remote: the worker lost its master, and rejoins it", "master", w.cfg.Master, "why", why, "window", w.cfg.Rejoin)
	w.joined, w.rejoining, w.why = false, true, why
	w.newGeneration()
	w.until = time.Now().Add(w.cfg.Rejoin)
	w.backoff = rejoinFirst
	w.attempt(ctx)
}

// newGeneration forgets what the worker held: the work running on it is
// cancelled, and its answers will be dropped.
func (w *worker[I, O]) newGeneration() {
	w.gen++
	w.stopWork()
	w.genCtx, w.stopWork = context.WithCancel(w.ctx)
	w.held.Clear()
}

// attempt tries to rejoin once, unless the window has passed: it checks
// that the master's address takes a connection, and registers if so. The
// check keeps protoactor from opening a connection, and reporting it lost,
// for each attempt at an address that refuses.
func (w *worker[I, O]) attempt(ctx actor.Context) {
	left := time.Until(w.until)
	if left <= 0 {
		w.end(fmt.Errorf("%w: %s: %s, and it did not come back within %v", ErrMasterGone, w.cfg.Master, w.why, w.cfg.Rejoin))
		return
	}
	w.tries++
	w.probe(w.tries, min(w.backoff, left))
	wait := w.backoff/2 + rand.N(w.backoff/2+1) // jitter, so that workers spread
	w.backoff = min(2*w.backoff, rejoinMost)
	w.clock.Reset(min(wait, left))
}

// probe dials the master's address for at most d and tells the actor how
// it went.
func (w *worker[I, O]) probe(attempt uint64, d time.Duration) {
	w.probes.Add(1)
	go func() {
		defer w.probes.Done()
		dctx, cancel := context.WithTimeout(w.ctx, max(d, rejoinFirst))
		defer cancel()
		var dialer net.Dialer
		conn, err := dialer.DialContext(dctx, "tcp", w.cfg.Master)
		if err == nil {
			conn.Close()
		}
		w.sys.Root.Send(w.self, probed{attempt: attempt, err: err})
	}()
}

// probedAt registers again once the master's address took a connection in
// the latest attempt.
func (w *worker[I, O]) probedAt(ctx actor.Context, p probed) {
	if !w.rejoining || p.attempt != w.tries || p.err != nil {
		return
	}
	w.register(ctx)
}

// register asks the master to take the worker in, watching it first: a
// master that goes away before it answers is seen at once. Each Register
// has a nonce of its own, and only the Welcome to the latest counts.
func (w *worker[I, O]) register(ctx actor.Context) {
	ctx.Watch(w.master)
	w.nonce++
	w.tell(ctx, &wire.Register{Stage: w.cfg.Stage, Slots: uint32(w.cfg.Slots), Tags: w.cfg.Tags, Nonce: w.nonce})
}

// rejoined takes the Welcome of a master the worker had lost: the same run
// of the stage or another, whose incarnation its messages now name.
func (w *worker[I, O]) rejoined(m *wire.Welcome) {
	if m.Incarnation != w.inc {
		slog.Warn("remote: the worker rejoined another run of its stage", "master", w.cfg.Master, "after", time.Since(w.until.Add(-w.cfg.Rejoin)))
	} else {
		slog.Warn("remote: the worker rejoined its master", "master", w.cfg.Master, "after", time.Since(w.until.Add(-w.cfg.Rejoin)))
	}
	w.rejoining = false
}

// unwatched drops the master from those watching the worker's actor, so
// that its end is not reported to a master that is gone: protoactor would
// dial it, for nothing, as the worker's node closes.
func (w *worker[I, O]) unwatched() {
	if p, ok := w.sys.ProcessRegistry.Get(w.self); ok {
		p.SendSystemMessage(w.self, &actor.Unwatch{Watcher: w.master})
	}
}
