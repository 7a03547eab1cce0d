package buffer

import (
	"time"

	"github.com/evolvekit/evolve/agent"
)

// take adds the items of m to the open batch, cutting it each time it is full.
// The items are copied: the message's slice is never kept.
func (s State[T]) take(m agent.Input[T]) State[T] {
	for _, v := range m.Items {
		if len(s.open) == 0 {
			s.openedAt = m.At
		}
		s.open = append(s.open, v)
		if len(s.open) == s.cfg.Size {
			s = s.cut()
		}
	}
	return s
}

// cut closes the open batch, if it holds anything, and queues it for its
// flush. The next batch gets a new generation, so the linger timer of this
// one is stale from now on; settle disarms it.
func (s State[T]) cut() State[T] {
	if len(s.open) == 0 {
		return s
	}
	if s.armed {
		s.lapsed, s.lapse = s.gen, true
	}
	s.ready = append(s.ready, s.open)
	s.open, s.openedAt = nil, time.Time{}
	s.gen, s.armed = s.gen+1, false
	return s
}
