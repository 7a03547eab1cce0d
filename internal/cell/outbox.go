package cell

// outbox gathers the values one round of a cell emits, so that its outlet
// gets them in one delivery: one hand-over to the next agent of a chain per
// round, not one per Emit. The first Emit of a round is kept as it is, the
// agent's own slice, which it gave away; a second one copies both into a
// slice of the outbox's own, reused from round to round.
type outbox[O any] struct {
	pending []O  // the values gathered, in order
	owned   bool // pending is scratch, not an agent's slice
	scratch []O  // the outbox's own slice, empty between rounds
}

// add gathers values after those gathered before.
func (b *outbox[O]) add(values []O) {
	switch {
	case len(values) == 0:
	case len(b.pending) == 0:
		b.pending, b.owned = values, false
	case !b.owned:
		b.scratch = append(append(b.scratch[:0], b.pending...), values...)
		b.pending, b.owned = b.scratch, true
	default:
		b.pending = append(b.pending, values...)
	}
}

// take returns the values gathered, and leaves the outbox empty.
func (b *outbox[O]) take() []O {
	values := b.pending
	b.pending = nil
	return values
}

// done takes back values, which take returned and the outlet has let go
// of: the outbox's own slice is cleared, so that it holds no value, and
// reused.
func (b *outbox[O]) done(values []O) {
	if !b.owned {
		return
	}
	clear(values)
	b.scratch, b.owned = values[:0], false
}
