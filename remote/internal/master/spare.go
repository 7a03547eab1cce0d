package master

import (
	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/remote/internal/book"
)

// Spare keeps a few slices of outcomes the book is done with, for the link
// to decode the next workers' messages into: a slice of them each
// message, as long as its items, is most of what a master allocates. The
// runtime hands back each message the stage's evolve took once its step is
// over (the link's Port.Spent), and Put keeps a book.Outcomes event's
// slice: the book keeps no slice of an event, only what it copies out of
// one. The link takes one as it decodes. It is safe for use by both at
// once, and its zero value is not: make one with NewSpare.
type Spare[O any] struct {
	free chan []book.Outcome[O]
}

// spares is how many slices a Spare keeps, and spareMost the most outcomes
// one may hold: a larger slice is left to the garbage collector.
const (
	spares    = 4
	spareMost = 4096
)

// NewSpare returns an empty Spare.
func NewSpare[O any]() *Spare[O] {
	return &Spare[O]{free: make(chan []book.Outcome[O], spares)}
}

// Put keeps the outcomes m brings, if it is a book.Outcomes event, cleared
// so that they hold no error or value; the caller must not use them again.
func (s *Spare[O]) Put(m agent.Msg) {
	e, ok := m.(agent.Event[book.Outcomes[O]])
	if !ok || cap(e.Value.Outcomes) == 0 || cap(e.Value.Outcomes) > spareMost {
		return
	}
	out := e.Value.Outcomes[:cap(e.Value.Outcomes)]
	clear(out)
	select {
	case s.free <- out[:0]:
	default:
	}
}

// get returns an empty slice of zeroed outcomes with room for n: a kept
// one if it has the room, else a new one. A nil Spare keeps none.
func (s *Spare[O]) get(n int) []book.Outcome[O] {
	if s != nil {
		select {
		case out := <-s.free:
			if cap(out) >= n {
				return out
			}
		default:
		}
	}
	return make([]book.Outcome[O], 0, n)
}
