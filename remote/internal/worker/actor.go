package worker

import (
	"context"
	"fmt"
	"net"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/evolvekit/evolve/remote/internal/wire"
	"google.golang.org/protobuf/proto"
)

// Messages the worker's own parts send its actor.
type (
	// flush asks for the outcomes that wait to be sent.
	flush struct{}
	// quit says the worker's context ended: it leaves.
	quit struct{}
	// tick is the session's clock, with the tag of the Arm that set it.
	tick struct{ tag uint64 }
)

// Receive implements actor.Actor: what the master sends, and what the
// worker's own parts do. What concerns the protocol goes to the session,
// whose actions the actor performs; tasks and outcomes are the actor's.
func (w *worker[I, O]) Receive(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case *actor.Started:
		w.self = ctx.Self()
		w.step(ctx, Start{})
	case *wire.Welcome:
		w.limit = wire.Limit(w.cfg.MaxMessage, m.MaxMessage)
		w.untimed.Store(m.Untimed)
		w.step(ctx, Welcomed{Worker: m.Worker, Incarnation: m.Incarnation, Nonce: m.Nonce, Refused: m.Refused,
			Heartbeat: time.Duration(m.Heartbeat), Lease: time.Duration(m.Lease), Prefetch: int(m.Prefetch), Owed: w.owed, Asked: int(m.Asked)})
	case *wire.Tasks:
		w.session.Hear()
		w.take(m)
	case flush:
		w.send(ctx, false)
	case *wire.Pulse:
		w.step(ctx, Pulsed{Worker: m.Worker, Incarnation: m.Incarnation, Known: m.Known})
	case tick:
		w.step(ctx, Tick{Tag: m.tag})
		w.checkWedged(w.cfg.Clock.Now())
	case Probed:
		w.step(ctx, m)
	case quit:
		w.step(ctx, Quit{})
	case *wire.Finished:
		if ctx.Sender() != nil {
			ctx.Respond(&wire.Finished{})
		}
		w.step(ctx, Finished{})
	case *actor.Terminated:
		if m.Who.Equal(w.master) {
			w.step(ctx, Gone{Stopped: m.Why == actor.TerminatedReason_Stopped, Why: m.Why.String()})
		}
	}
}

// step hands e to the session, at the clock's instant, and performs what
// it asks.
func (w *worker[I, O]) step(ctx actor.Context, e Event) {
	for _, a := range w.session.Step(w.cfg.Clock.Now(), e) {
		w.perform(ctx, a)
	}
}

// perform does what the session asked.
func (w *worker[I, O]) perform(ctx actor.Context, a Action) {
	id, inc := w.session.ID()
	switch a := a.(type) {
	case Register:
		// Watched first: a master that goes away before it answers is
		// seen at once.
		ctx.Watch(w.master)
		w.tell(ctx, &wire.Register{Stage: w.cfg.Stage, Slots: uint32(w.cfg.Slots), Tags: w.cfg.Tags, Prefetch: uint32(w.cfg.Prefetch), Nonce: a.Nonce,
			MaxMessage: uint64(w.cfg.MaxMessage), Ask: uint32(a.Ask)})
	case Ask:
		w.tell(ctx, &wire.Ask{Worker: id, N: uint32(a.N), Incarnation: inc})
	case Beat:
		w.tell(ctx, &wire.Beat{Worker: id, Incarnation: inc})
	case Probe:
		w.probe(a)
	case Arm:
		w.arm(a)
	case Quiet:
		w.guard.SetQuiet(a.Silence) // see node.Node.quiet
	case Joined:
		w.joined(a)
	case Lost:
		w.cfg.Log.Warn().Str("master", w.cfg.Master).Str("why", a.Why).Dur("window", a.Window).
			Msg("remote: the worker lost its master, and rejoins it")
		w.newGeneration()
	case Ready:
		select {
		case w.ready <- a.Err:
		default:
		}
	case Leave:
		w.leave(ctx)
	case Over:
		close(w.over)
	case End:
		if a.Unwatch {
			w.unwatched()
		}
		select {
		case w.ended <- a.Err:
		default:
		}
	}
}

// tell sends the master m, with the worker as its sender, which the
// master checks.
func (w *worker[I, O]) tell(ctx actor.Context, m proto.Message) { ctx.Request(w.master, m) }

// joined logs that the worker joined its master, or joined it again.
func (w *worker[I, O]) joined(j Joined) {
	switch {
	case !j.Rejoined:
		w.cfg.Log.Debug().Str("master", w.cfg.Master).Uint64("worker", j.ID).Msg("remote: the worker joined its master")
	case j.Another:
		w.cfg.Log.Warn().Str("master", w.cfg.Master).Dur("after", j.After).Msg("remote: the worker rejoined another run of its stage")
	default:
		w.cfg.Log.Warn().Str("master", w.cfg.Master).Dur("after", j.After).Msg("remote: the worker rejoined its master")
	}
}

// arm sets the session's clock, in the place of the tick pending.
func (w *worker[I, O]) arm(a Arm) {
	if w.tick != nil {
		w.tick()
	}
	self, root := w.self, w.sys.Root
	w.tick = w.cfg.Clock.AfterFunc(a.Delay, func() { root.Send(self, tick{tag: a.Tag}) })
}

// stopTimers cancels the session's tick and the outbox's flush, once the
// actor has stopped.
func (w *worker[I, O]) stopTimers() {
	if w.tick != nil {
		w.tick()
	}
	w.out.stop()
}

// newGeneration forgets what the worker held: the work running on it is
// cancelled, and its outcomes will be dropped.
func (w *worker[I, O]) newGeneration() {
	w.gen++
	w.stopWork()
	w.genCtx, w.stopWork = context.WithCancel(w.ctx)
	w.held.Clear()
}

// leave sends the outcomes that have ended, hands back what the worker
// still holds and says it goes; the master's Finished acknowledges it.
// Outcomes that end later are not sent: the master queues again every task
// still held by a worker that left.
func (w *worker[I, O]) leave(ctx actor.Context) {
	w.send(ctx, true)
	id, inc := w.session.ID()
	handed := make([]uint64, 0, w.held.Len())
	for item := range w.held.All() {
		handed = append(handed, item)
	}
	w.tell(ctx, &wire.Leave{Worker: id, Handed: handed, Incarnation: inc})
}

// probe dials the master's address for at most p.Within and tells the
// actor how it went.
func (w *worker[I, O]) probe(p Probe) {
	w.probes.Add(1)
	self, root := w.self, w.sys.Root
	go func() {
		defer w.probes.Done()
		dctx, cancel := context.WithTimeout(w.ctx, p.Within)
		defer cancel()
		var dialer net.Dialer
		conn, err := dialer.DialContext(dctx, "tcp", w.cfg.Master)
		if err == nil {
			conn.Close()
		}
		root.Send(self, Probed{Attempt: p.Attempt, Err: err})
	}()
}

// unwatched drops the master from those watching the worker's actor, so
// that its end is not reported to a master that is gone: protoactor would
// dial it, for nothing, as the worker's node closes.
func (w *worker[I, O]) unwatched() {
	if p, ok := w.sys.ProcessRegistry.Get(w.self); ok {
		p.SendSystemMessage(w.self, &actor.Unwatch{Watcher: w.master})
	}
}

// take hands the tasks of m to the slots, which decode them. Tasks for an
// earlier join of the worker, or another run of the stage, are dropped:
// the master has taken them back.
func (w *worker[I, O]) take(m *wire.Tasks) {
	if !w.session.Takes(m.Incarnation, m.Worker) {
		return
	}
	tasks, ok := tasksOf(m, w.batch[:0], w.gen, w.genCtx)
	if !ok {
		return
	}
	w.owed += len(tasks)
	for _, t := range tasks {
		w.held.Put(t.item, t.attempt)
	}
	w.running.Add(int64(len(tasks)))
	n := w.line.put(tasks)
	for _, t := range tasks[n:] {
		w.running.Add(-1)
		// The master gave more than the free slots and the prefetch:
		// refuse it.
		w.done(outcome{item: t.item, attempt: t.attempt, gen: t.gen, failed: true, err: fmt.Sprintf("remote: worker %d was handed item %d with no room for it", m.Worker, t.item)}, nil)
	}
	clear(tasks)
	w.batch = tasks[:0]
}

// tasksOf appends the tasks of m, come in generation gen, to tasks, their
// work to run under ctx, their bytes those of m's values; it reports false
// for a malformed m, whose lists differ in length or whose sizes ask for
// more bytes than it holds: none of its tasks is taken.
func tasksOf(m *wire.Tasks, tasks []task, gen uint64, ctx context.Context) ([]task, bool) {
	if len(m.Items) != len(m.Attempts) || len(m.Items) != len(m.Sizes) || len(m.Hops) != 0 && len(m.Hops) != len(m.Items) ||
		!wire.Fit(m.Sizes, m.Values) {
		return tasks, false
	}
	off := 0
	for i, item := range m.Items {
		end := off + int(m.Sizes[i])
		tasks = append(tasks, task{item: item, attempt: m.Attempts[i], at: uint32(i), data: m.Values[off:end:end], gen: gen, ctx: ctx, src: m})
		off = end
	}
	return tasks, true
}
