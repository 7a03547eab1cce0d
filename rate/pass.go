package rate

import (
	"time"

	"github.com/evolvekit/evolve/agent"
)

// pass emits waiting items, oldest first, while demand lasts and the bucket
// holds the oldest one's cost at instant at. A costly item is never
// overtaken: the items behind it wait with it. The emitted values are copied
// into a new slice, and their input slots given back with [agent.Demand].
func (s State[T]) pass(at time.Time) (State[T], []agent.Effect) {
	n := 0
	for ; n < len(s.queue) && s.demand > 0; n++ {
		cost := s.queue[n].price(s.bucket.limit.Burst)
		if !covers(s.bucket.level(at), cost) {
			break
		}
		s.bucket = s.bucket.take(at, cost)
		s.demand--
	}
	if n == 0 {
		return s, nil
	}
	out := make([]T, n)
	for i, it := range s.queue[:n] {
		out[i] = it.Value
	}
	s.queue, s.passed = s.queue[n:], s.passed+n
	if len(s.queue) == 0 {
		s.queue = nil // let the emitted items go
	}
	return s, []agent.Effect{agent.Emit[T]{Values: out}, agent.Demand{N: n}}
}
