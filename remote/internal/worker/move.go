package worker

import (
	"slices"

	"github.com/evolvekit/evolve/remote/internal/move"
	"github.com/evolvekit/evolve/remote/internal/wire"
)

// Moves: work that returns a move.Request asks for its item to go on,
// with the request's next input, on a worker with its tag. The next input
// goes through the codec either way: a worker that holds the tag, while
// the item may move again, decodes it and goes on with it at once, in the
// same slot and under the same lease, and notes the step; otherwise the
// move goes to the master, with the input's bytes, which queues the item
// for a worker with the tag. A next input of another type than the
// stage's items fails the task.

// carry handles the move r that the work on task t asked for, with o the
// task's outcome so far: it encodes r's next input into buf, which it
// returns. It reports true if the work goes on here, with that input
// decoded into in; otherwise o holds the move, or the failure of a next
// input that is not of the stage's type or cannot cross the codec.
func (w *worker[I, O]) carry(t *task, r *move.Request, in *I, buf []byte, o *outcome) ([]byte, bool) {
	next, err := move.Next[I](r, t.item)
	if err == nil {
		err = move.CheckTag(r.Tag)
	}
	if err == nil {
		buf, err = w.cfg.Append(buf[:0], &next)
	}
	if err != nil {
		o.failed, o.err = true, err.Error()
		return buf[:0], false
	}
	if !w.holds(r.Tag) || t.hops()+len(o.steps) >= t.moves() {
		o.moved, o.tag = true, r.Tag
		return buf, false
	}
	var none I
	*in = none
	if err := w.cfg.Decode(buf, in); err != nil {
		o.failed, o.err = true, err.Error()
		return buf[:0], false
	}
	o.steps = append(o.steps, r.Tag)
	return buf[:0], true
}

// holds reports whether the worker holds tag: "" any worker holds.
func (w *worker[I, O]) holds(tag string) bool {
	return tag == "" || slices.Contains(w.cfg.Tags, tag)
}

// addMove adds to msg, whose last item is o's, o's move and the steps it
// made here, if any: msg's Steps is empty while no item has made one.
func addMove(msg *wire.Outcomes, o outcome) {
	last := uint32(len(msg.Items) - 1)
	if o.moved {
		msg.Moved = append(msg.Moved, last)
		msg.Tags = append(msg.Tags, o.tag)
	}
	if len(o.steps) > 0 && msg.Steps == nil {
		msg.Steps = make([]uint32, last, cap(msg.Items))
	}
	if msg.Steps != nil {
		msg.Steps = append(msg.Steps, uint32(len(o.steps)))
		msg.StepTags = append(msg.StepTags, o.steps...)
	}
}
