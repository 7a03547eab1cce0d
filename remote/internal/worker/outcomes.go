package worker

import "github.com/evolvekit/evolve/remote/internal/wire"

// outcomes puts out, whose values' bytes are values, in messages of at
// most w.limit bytes each (wire.Room for one outcome's bytes, wire.Cost
// for what it takes), in order, but for those it drops: of an earlier
// generation, or failures once the work's context has ended (no attempt's:
// the item is handed back as the worker leaves). An outcome too large for
// any message goes as a failure that says so. There is one message at
// least, and together they ask for len(out) tasks. The messages keep
// none of values: their bytes are copied, together, to a slice of their
// own.
func (w *worker[I, O]) outcomes(out []outcome, values []byte) []*wire.Outcomes {
	room := wire.Room(w.limit)
	quit := w.ctx.Err() != nil
	msgs := []*wire.Outcomes{w.newOutcomes(len(out))}
	msg := msgs[0]
	from, to, start, used, asked := 0, 0, 0, 0, 0
	sent := make([]byte, len(values))
	for _, o := range out {
		data := values[from : from+int(o.size)]
		from += int(o.size)
		if _, ok := w.held.Get(o.item); !ok || o.gen != w.gen || quit && o.failed {
			continue
		}
		w.held.Delete(o.item)
		if size := len(data) + texts(o); size > room {
			o, data = tooLarge(o, size, room), nil
		}
		cost := wire.Cost(len(data), texts(o))
		if len(msg.Items) > 0 && used+cost > room+wire.PerItem {
			msg.Values, msg.Ask = sent[start:to:to], uint32(len(msg.Items))
			asked += len(msg.Items)
			msg, start, used = w.newOutcomes(len(out)-asked), to, 0
			msgs = append(msgs, msg)
		}
		used += cost
		to += copy(sent[to:], data)
		o.size = uint32(len(data))
		addOutcome(msg, o)
	}
	msg.Values, msg.Ask = sent[start:to:to], uint32(len(out)-asked)
	return msgs
}

// newOutcomes returns an empty Outcomes message, with room for n; it
// carries what their work took unless the master has no use for it.
func (w *worker[I, O]) newOutcomes(n int) *wire.Outcomes {
	id, inc := w.session.ID()
	msg := &wire.Outcomes{Worker: id, Incarnation: inc, Items: make([]uint64, 0, n), Attempts: make([]uint32, 0, n), Sizes: make([]uint32, 0, n)}
	if !w.untimed.Load() {
		msg.Took = make([]int64, 0, n)
	}
	return msg
}

// addOutcome adds o, whose value's bytes the caller adds, to msg.
func addOutcome(msg *wire.Outcomes, o outcome) {
	msg.Items = append(msg.Items, o.item)
	msg.Attempts = append(msg.Attempts, o.attempt)
	msg.Sizes = append(msg.Sizes, o.size)
	if msg.Took != nil {
		msg.Took = append(msg.Took, int64(o.took))
	}
	if o.failed {
		msg.Failed = append(msg.Failed, uint32(len(msg.Items)-1))
		msg.Errors = append(msg.Errors, o.err)
	}
	addMove(msg, o)
}

// texts returns the bytes of o's texts: its error, its move's tag and the
// tags of its steps.
func texts(o outcome) int {
	n := len(o.err) + len(o.tag)
	for _, s := range o.steps {
		n += len(s)
	}
	return n
}

// tooLarge returns o, which takes size bytes of a message, over room, as
// the failure that says so: no message would carry it.
func tooLarge(o outcome, size, room int) outcome {
	what := "result of item"
	switch {
	case o.failed:
		what = "error of item"
	case o.moved:
		what = "next input of item"
	}
	o.err = wire.TooLarge(what, o.item, size, room).Error()
	o.failed, o.moved, o.tag, o.steps = true, false, "", nil
	return o
}
