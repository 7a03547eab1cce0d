package worker

import (
	"fmt"
	"slices"
	"time"
)

// slotReturned counts a slot that returned, and says so once none is left.
func (w *worker[I, O]) slotReturned() {
	if w.left.Add(-1) == 0 {
		close(w.idle)
	}
}

// settle waits for the slots to return, until deadline. Those still at
// work then ignore their context: settle abandons them, so that nothing
// they do reaches the actor system any more, and returns an error wrapping
// ErrAbandoned that names their items.
func (w *worker[I, O]) settle(deadline time.Time) error {
	t := time.NewTimer(time.Until(deadline))
	defer t.Stop()
	select {
	case <-w.idle:
		return nil
	case <-t.C:
	}
	w.gate.Lock()
	w.closed = true
	w.gate.Unlock()
	var items []uint64
	for i := range w.live {
		if v := w.live[i].Load(); v != 0 {
			items = append(items, v-1)
		}
	}
	if len(items) == 0 {
		return nil
	}
	slices.Sort(items)
	return fmt.Errorf("%w: %d still running %v after their context ended, on items %v", ErrAbandoned, len(items), w.cfg.Grace, items)
}
