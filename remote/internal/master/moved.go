package master

import "github.com/evolvekit/evolve/remote/internal/book"

// moved tells Config.OnMove of h, a move the book took, on the master's
// goroutine, before the item's next task can come back; an error it
// returns is logged, and the item goes on all the same.
func (l *link[I, O]) moved(h book.Hop) {
	f, _ := l.cfg.OnMove.(func(I, string, int) error)
	next, ok := h.Next.(I)
	if f == nil || h.Local || !ok {
		return
	}
	if err := f(next, h.Tag, h.Hops); err != nil {
		l.log.Error().Err(err).Str("stage", l.cfg.Name).Uint64("item", h.Item).Str("tag", h.Tag).
			Msg("remote: recording a move")
	}
}
