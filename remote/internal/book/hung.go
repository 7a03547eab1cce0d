package book

import "slices"

// attemptRef names one attempt at one item.
type attemptRef struct {
	seq     uint64
	attempt int
}

// Hung work: when the lease of an item a worker holds expires, the master
// takes the item back (a failed attempt) but not the slot: the worker may
// still be at work on it, and will not ask for that slot again until the
// work returns. The attempt is kept in the worker's hung list until its
// result comes, late, and the worker goes on with its other slots
// meanwhile. A worker whose every slot is hung is stalled: it is given
// nothing, and no longer counts as a worker that may take items, so that
// items no other worker may take wait for one and, after TagWait, fail
// with ErrNoWorker instead of waiting for ever.

// stalled reports whether every slot of w is hung.
func (w *member) stalled() bool { return len(w.hung) >= w.slots }

// hang notes that w still holds attempt r, whose lease expired.
func (b *Book[I, O, R]) hang(w *member, r attemptRef) {
	was := w.stalled()
	w.hung = append(w.hung, r)
	b.restall(w, was)
}

// unhang forgets the hung attempt r of w, whose result came, and reports
// whether it was hung.
func (b *Book[I, O, R]) unhang(w *member, r attemptRef) bool {
	i := slices.Index(w.hung, r)
	if i < 0 {
		return false
	}
	was := w.stalled()
	w.hung = slices.Delete(w.hung, i, i+1)
	b.restall(w, was)
	return true
}

// restall counts w among the stalled workers, or no longer, if that
// changed since it was (was).
func (b *Book[I, O, R]) restall(w *member, was bool) {
	switch now := w.stalled(); {
	case now && !was:
		b.stall(w, 1)
	case was && !now:
		b.stall(w, -1)
	}
}

// stall adds d to the stalled workers, and to those of each tag of w.
func (b *Book[I, O, R]) stall(w *member, d int) {
	b.stalled += d
	for _, k := range w.lines[1:] {
		b.lines[k].stalled += d
	}
}
