package worker

import (
	"sync"
	"time"

	"github.com/asynkron/protoactor-go/actor"
)

// outcome is what one task came to; its value's bytes wait in the outbox's
// values, after those of the outcomes before it.
type outcome struct {
	item    uint64
	attempt uint32
	size    uint32 // of the value's bytes
	gen     uint64 // the worker's generation the task came in
	err     string
	failed  bool
	took    time.Duration // what the work took
	moved   bool          // the work asked to go on with a worker with tag
	tag     string
	steps   []string // the tags of the moves it made here, in order
}

// outbox gathers the outcomes the slots end with, until the actor sends
// them: an outcome waits for others until half the slots' worth have
// ended, every slot is idle, or flushSpan has passed since the first of
// them, so quick work sends few messages and slow work loses at most
// flushSpan. Slots add to it concurrently; the actor takes from it.
type outbox struct {
	wake func() // asks the actor to send what waits

	mu        sync.Mutex
	pending   []outcome
	values    []byte      // the bytes of the pending outcomes' values, end to end
	scheduled bool        // a flush is on its way to the actor
	timed     bool        // later is armed
	later     *time.Timer // flushes the outcomes that wait for company

	spare       []outcome // the memory of the outcomes sent last, for the next; the actor's
	spareValues []byte    // and of their values' bytes, which the messages do not keep
}

// flushSpan bounds how long an outcome waits for company.
const flushSpan = 200 * time.Microsecond

// init readies the outbox, whose flushes wake calls for. Its timer is a
// time.Timer of its own, reset rather than made for every flush: it arms
// once a few hundred microseconds under quick work.
func (b *outbox) init(wake func()) {
	b.wake = wake
	b.later = time.AfterFunc(time.Hour, b.flushLater)
	b.later.Stop()
}

// add adds o, whose value's bytes are data, to what waits, from a slot of
// a worker with slots slots, idle once none runs a task. It asks for the
// outcomes to be sent when enough have gathered or no slot is busy, and
// otherwise makes sure they go within flushSpan; outcomes that end while a
// message is on its way go together in the next.
func (b *outbox) add(o outcome, data []byte, idle bool, slots int) {
	b.mu.Lock()
	o.size = uint32(len(data))
	b.values = append(b.values, data...)
	b.pending = append(b.pending, o)
	if b.scheduled {
		b.mu.Unlock()
		return
	}
	if idle || 2*len(b.pending) >= slots {
		b.scheduled = true
		b.mu.Unlock()
		b.wake()
		return
	}
	arm := !b.timed
	b.timed = true
	b.mu.Unlock()
	if arm {
		b.later.Reset(flushSpan)
	}
}

// flushLater asks for the outcomes that waited flushSpan for company.
func (b *outbox) flushLater() {
	b.mu.Lock()
	b.timed = false
	wake := !b.scheduled && len(b.pending) > 0
	b.scheduled = b.scheduled || wake
	b.mu.Unlock()
	if wake {
		b.wake()
	}
}

// take returns what waits, for the actor to send, and makes room for what
// comes next; give the outcomes and values back with recycle once sent.
func (b *outbox) take() ([]outcome, []byte) {
	b.mu.Lock()
	defer b.mu.Unlock()
	out, values := b.pending, b.values
	b.pending, b.values, b.scheduled = b.spare, b.spareValues, false
	b.spare, b.spareValues = nil, nil
	return out, values
}

// recycle keeps the memory of outcomes sent, and of their values' bytes,
// for the next; the bytes only up to slotBuffer.
func (b *outbox) recycle(out []outcome, values []byte) {
	clear(out)
	b.spare = out[:0]
	if cap(values) <= slotBuffer {
		b.spareValues = values[:0]
	}
}

// stop cancels the flush pending.
func (b *outbox) stop() { b.later.Stop() }

// done adds an outcome, whose value's bytes are data, to what waits.
func (w *worker[I, O]) done(o outcome, data []byte) {
	w.out.add(o, data, w.running.Load() == 0, w.cfg.Slots)
}

// wake asks the actor to send what waits, unless Run has returned. A slot
// reads w.self only after the actor handed it a task, so after the actor
// set it.
func (w *worker[I, O]) wake() {
	w.gate.RLock()
	defer w.gate.RUnlock()
	if !w.closed {
		w.sys.Root.Send(w.self, flush{})
	}
}

// send sends the master the outcomes that wait, which ask for as many
// tasks, if the worker reports them, or it is leaving (and they go
// first). Those of an earlier generation are dropped, and free their
// slots all the same; while the worker rejoins, all are.
func (w *worker[I, O]) send(ctx actor.Context, leaving bool) {
	out, values := w.out.take()
	w.owed -= len(out)
	if (leaving || w.session.Reports()) && len(out) > 0 {
		for _, msg := range w.outcomes(out, values) {
			w.tell(ctx, msg)
		}
		w.session.Spoke()
	}
	w.out.recycle(out, values)
}
