package rate

import (
	"time"

	"github.com/evolvekit/evolve/internal/fifo"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/internal/pace"
)

// pass grants the passes owed, a token each, then emits waiting items,
// oldest first, while demand lasts and the bucket holds the oldest one's
// cost at instant at. A costly item is never overtaken: the items behind it
// wait with it, and so do they behind an owed pass. The emitted values are
// copied into a new slice, and their input slots given back with
// [agent.Demand].
func (s *State[T]) pass(at time.Time, fx []agent.Effect) []agent.Effect {
	if s.owed > 0 {
		fx = s.grant(at, fx)
		if s.owed > 0 {
			return fx
		}
	}
	most := min(s.waiting(), s.demand)
	if most <= 0 {
		return fx
	}
	burst := s.bucket.limit.Burst
	s.stage(1)
	cost := s.queue.At(0).price(burst)
	if !covers(s.bucket.level(at), cost) {
		return fx
	}
	s.bucket = s.bucket.take(at, cost)
	// The bucket is anchored at instant at now, so the items after the
	// first pay from the tokens it holds, with no refill between them:
	// what take would do for each, without its reading of the clock.
	n, tokens := 1, s.bucket.tokens
	for ; n < most; n++ {
		s.stage(n + 1)
		cost := s.queue.At(n).price(burst)
		if !covers(tokens, cost) {
			break
		}
		tokens -= cost
	}
	s.bucket.tokens = tokens
	s.demand -= n
	out := make([]T, n)
	for i := range out {
		out[i] = s.queue.At(i).Value
	}
	s.queue, s.passed = s.queue.Drop(n), s.passed+n
	fx = append(fx, agent.Emit[T]{Values: out})
	return append(s.passedKeys(n, fx), agent.Demand{N: n})
}

// admit takes items of cost 1 at instant at. With none waiting before
// them, those that demand and the bucket let pass go out as they came, the
// message's own slice, which the runtime lets an agent emit in the step it
// came in; the rest wait. It is what queuing them and settling does, with
// neither copy.
func (s *State[T]) admit(items []T, at time.Time, fx []agent.Effect) []agent.Effect {
	if s.line != nil {
		for _, v := range items {
			s.line.Push(s.keyOf(v), Item[T]{Value: v})
		}
		return s.settle(at, fx)
	}
	if s.queue.Len() > 0 || s.owed > 0 {
		s.queue = pushValues(s.queue, items)
		return s.settle(at, fx)
	}
	if n := s.spendOnes(at, min(len(items), s.demand)); n > 0 {
		s.demand -= n
		s.passed += n
		fx = append(fx, agent.Emit[T]{Values: items[:n:n]}, agent.Demand{N: n})
		items = items[n:]
	}
	s.queue = pushValues(s.queue, items)
	fx = s.arm(at, fx)
	return s.finish(s.ask(fx))
}

// spendOnes takes from the bucket, at instant at, a token for each of as
// many as most items of cost 1 as it holds them for, as pass does, and
// returns how many.
func (s *State[T]) spendOnes(at time.Time, most int) int {
	if most <= 0 || !covers(s.bucket.level(at), 1) {
		return 0
	}
	s.bucket = s.bucket.take(at, 1)
	n, tokens := 1, s.bucket.tokens
	for ; n < most && covers(tokens, 1); n++ {
		tokens--
	}
	s.bucket.tokens = tokens
	return n
}

// pushValues returns q with values pushed as items of cost 1.
func pushValues[T any](q fifo.Queue[Item[T]], values []T) fifo.Queue[Item[T]] {
	for _, v := range values {
		q = q.Push(Item[T]{Value: v})
	}
	return q
}

// grant grants as many of the passes owed as the bucket holds tokens for
// at instant at, one a pass.
func (s *State[T]) grant(at time.Time, fx []agent.Effect) []agent.Effect {
	n := 0
	for ; n < s.owed && covers(s.bucket.level(at), 1); n++ {
		s.bucket = s.bucket.take(at, 1)
	}
	if n == 0 {
		return fx
	}
	s.owed -= n
	s.granted += n
	return append(fx, pace.Out(pace.Grant{N: n}))
}
