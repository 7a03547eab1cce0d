package worker

import (
	"context"
	"fmt"
	"time"

	"github.com/evolvekit/evolve/internal/safe"
	"github.com/evolvekit/evolve/remote/internal/move"
	"github.com/evolvekit/evolve/remote/internal/wire"
	otrace "go.opentelemetry.io/otel/trace"
)

// task is one task as the worker's slots take it, its item's bytes not yet
// decoded: with the generation it came in, and the context its work runs
// under, which ends when the worker loses its master. What the message it
// came in holds for it alone, the moves its item made before it and its
// trace context, is read there (see hops and trace.go), so that a task is
// small to copy: a worker copies each a few times on its way to a slot.
type task struct {
	item    uint64
	attempt uint32
	at      uint32 // its place in src
	data    []byte
	gen     uint64
	ctx     context.Context
	src     *wire.Tasks // the message it came in; nil in tests
}

// hops returns the moves t's item made before it.
func (t *task) hops() int { return int(ownOf(t, t.src.GetHops())) }

// moves returns the most moves t's item may make.
func (t *task) moves() int { return int(t.src.GetMoves()) }

// ownOf returns t's value in list, one of its message's lists of a value
// per task, or the zero value if it is not one for each task (a list that
// is not is ignored).
func ownOf[T any](t *task, list []T) T {
	var none T
	if t.src == nil || len(list) != len(t.src.Items) || int(t.at) >= len(list) {
		return none
	}
	return list[t.at]
}

// slot runs the work on one task at a time until the worker ends; once
// the work's context has ended, it starts none: the worker hands back the
// items it has not done. Slot i notes in live[i] the item it is at. It
// decodes items and encodes values through values of its own, reused, so
// that a task of a small type costs no allocation.
func (w *worker[I, O]) slot(i int) {
	defer w.slotReturned()
	wake := make(chan struct{}, 1)
	in, out := new(I), new(O)
	var buf []byte
	for {
		t, ok := w.line.take(wake)
		if !ok {
			return
		}
		o := outcome{item: t.item, attempt: t.attempt, gen: t.gen}
		if err := t.ctx.Err(); err != nil {
			// The worker leaves, or lost its master: the item goes back,
			// and this outcome, never sent, only frees its place.
			o.failed, o.err = true, err.Error()
			w.running.Add(-1)
			w.done(o, nil)
			continue
		}
		span := w.tracing.begin(&t)
		buf = w.run(i, &t, span, in, out, buf[:0], &o)
		end(span, &o)
		w.running.Add(-1)
		w.done(o, buf)
		if cap(buf) > slotBuffer {
			buf = nil
		}
	}
}

// slotBuffer bounds the memory a slot keeps to encode values in.
const slotBuffer = 64 << 10

// run decodes t's item into in, runs the work on it in slot i, under
// span (nil for none), and encodes its value, through out, into buf,
// which it returns; a failure goes in o, with no bytes, and so does a
// move, with its next input's bytes (see carry).
func (w *worker[I, O]) run(i int, t *task, span otrace.Span, in *I, out *O, buf []byte, o *outcome) []byte {
	var noIn I
	var noOut O
	*in = noIn
	if err := w.cfg.Decode(t.data, in); err != nil {
		o.failed, o.err = true, fmt.Sprintf("remote: decoding item %d: %v", t.item, err)
		return buf
	}
	w.live[i].Store(t.item + 1)
	start := w.now()
	v, err := w.call(t.ctx, *in)
	for r := move.Of(err); r != nil; r = move.Of(err) {
		var again bool
		buf, again = w.carry(t, r, in, buf, o)
		if again || o.moved {
			moved(span, r.Tag, again)
		}
		if !again {
			o.took = since(start)
			w.live[i].Store(0)
			*in = noIn
			return buf
		}
		v, err = w.call(t.ctx, *in)
	}
	o.took = since(start)
	w.live[i].Store(0)
	*in = noIn
	if err == nil {
		*out = v
		buf, err = w.cfg.Append(buf, out)
		*out = noOut
	}
	if err != nil {
		o.failed, o.err = true, err.Error()
		return buf[:0]
	}
	return buf
}

// now returns the instant a task's work starts, to measure what it takes,
// or the zero time if the master has no use for that: the clock is read
// twice a task otherwise, which costs as much as a tiny task's work.
func (w *worker[I, O]) now() time.Time {
	if w.untimed.Load() {
		return time.Time{}
	}
	return time.Now()
}

// since returns what the work that started at start (from now) took, or 0
// if it was not measured.
func since(start time.Time) time.Duration {
	if start.IsZero() {
		return 0
	}
	return time.Since(start)
}

// call runs the work on one item, turning a panic into an error.
func (w *worker[I, O]) call(ctx context.Context, in I) (v O, err error) {
	defer safe.Recover(&err)
	return w.work(ctx, in)
}
