package rate

import (
	"time"

	"github.com/evolvekit/evolve/agent"
)

// arm makes sure a timer is pending for the instant the token of the next
// pass owed is due, or else the oldest item's tokens, when that item waits
// for tokens only (it holds demand). A timer
// already pending for that instant is kept; otherwise the pending one is
// disarmed and a new one is asked for with a new tag, which makes the Tick of
// the earlier one stale should it still arrive. When no item waits for
// tokens, the pending timer is disarmed. So at most one timer counts at a
// time, its Tick always lets an item through, and an agent with waiting items
// and demand always has one.
func (s *State[T]) arm(at time.Time, fx []agent.Effect) []agent.Effect {
	var due time.Time
	var ok bool
	switch {
	case s.owed > 0:
		due, ok = s.bucket.due(at, 1)
	case s.waiting() == 0 || s.demand < 1:
		return s.disarm(fx)
	default:
		due, ok = s.bucket.due(at, s.head())
	}
	if !ok {
		// No token comes under this limit: the next Set brings some.
		return s.disarm(fx)
	}
	if s.armed && due.Equal(s.due) {
		return fx
	}
	fx = s.disarm(fx)
	s.tag, s.due, s.armed = s.tag+1, due, true
	// due is after at, unless last is so far back that at.Sub(last)
	// saturates (292 years); then the Tick comes at once and arms again.
	delay := max(due.Sub(at), time.Nanosecond)
	return append(fx, agent.Timer{Tag: s.tag, Delay: delay})
}

// disarm cancels the pending timer, if any.
func (s *State[T]) disarm(fx []agent.Effect) []agent.Effect {
	if !s.armed {
		return fx
	}
	s.armed = false
	return append(fx, agent.Disarm{Tag: s.tag})
}
