package parallel

import (
	"context"
	"errors"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/internal/moves"
)

// retryTag is the tag of the timer that wakes the agent when the next
// failed item may be tried again.
const retryTag = 1

// retryFailed takes out of rs, the results of the batch f, the failures
// worth another attempt, and queues their items to be tried again after a
// backoff from instant at. It returns the results that stand.
func (s *State[In, Out]) retryFailed(rs []Result[Out], f flight[In], at time.Time) []Result[Out] {
	if f.attempt >= s.retry.Attempts || s.cancelled != nil {
		return rs
	}
	var kept []Result[Out]
	for i, r := range rs {
		if r.Err == nil || i >= len(f.items) || !s.worthRetrying(r.Err) {
			if kept != nil {
				kept = append(kept, r)
			}
			continue
		}
		if kept == nil {
			kept = append(make([]Result[Out], 0, len(rs)), rs[:i]...)
		}
		wait := s.backoff(f.attempt, r.Err)
		s.queueRetry(retrial[In]{seq: r.Seq, item: f.items[i], attempt: f.attempt + 1, due: at.Add(wait)})
		s.retried++
	}
	if kept == nil {
		return rs
	}
	return kept
}

// worthRetrying reports whether a failure earns another attempt: a move
// (see moveOn) is no failure.
func (s *State[In, Out]) worthRetrying(err error) bool {
	if _, ok := moves.Of(err); ok {
		return false
	}
	if s.retry.If != nil {
		return s.retry.If(err)
	}
	return !errors.Is(err, context.Canceled)
}

// backoff draws the wait after the attempt-th attempt failed with err: up
// to Backoff doubled for each attempt after the first, at most MaxBackoff,
// and at least the wait err asks for.
func (s *State[In, Out]) backoff(attempt int, err error) time.Duration {
	ceiling := s.retry.Backoff
	for range attempt - 1 {
		if ceiling >= s.retry.MaxBackoff/2 {
			ceiling = s.retry.MaxBackoff
			break
		}
		ceiling *= 2
	}
	ceiling = min(ceiling, s.retry.MaxBackoff)
	rng := s.rng
	wait := time.Duration(rng.Uint64() % (uint64(ceiling) + 1))
	s.rng = rng
	var after *agent.RetryAfterError
	if errors.As(err, &after) {
		wait = max(wait, after.After)
	}
	return wait
}

// queueRetry adds r to the items waiting to be tried again, by due instant.
func (s *State[In, Out]) queueRetry(r retrial[In]) {
	i := s.retrying.Search(func(q retrial[In]) bool { return q.due.After(r.due) })
	s.retrying = s.retrying.Insert(i, r)
}

// startRetries starts the items whose retry is due by instant at, each in a
// batch of its own whose ID is its Seq, as the limit and the passes held
// allow, and returns how many more passes the retries due need: one for
// each that has a free place but no pass, whose place then stays free for
// it, so that a retry starts as its pass comes. Retries keep the pace of
// the chain, and go ahead of new items. Their demand was reserved as they
// waited, and their input slots given back when they first started (or
// were stranded). Behind a pacer, a pass that cannot be used at once (the
// limit fell) is dropped, as one kept for later would break the pace, and
// the places of the room opened to the pacer are not free.
func (s *State[In, Out]) startRetries(fx []agent.Effect, at time.Time) ([]agent.Effect, int) {
	for s.passes > 0 && s.retrying.Len() > 0 && s.running.Len() < s.limit && !s.retrying.At(0).due.After(at) {
		var r retrial[In]
		r, s.retrying = s.retrying.Pop()
		s.passes--
		items := []In{r.item}
		f := flight[In]{id: r.seq, n: 1, at: at, wait: at.Sub(r.due), among: s.running.Len() + 1, items: items, attempt: r.attempt, owes: r.owes, path: r.path}
		s.running = s.running.Put(r.seq, f)
		s.assigned++
		fx = append(fx, agent.Start[[]In]{ID: r.seq, Work: items})
	}
	due := s.dueBy(at)
	s.passes = min(s.passes, due) // a pass kept for later would break the pace
	if s.paced {
		s.passes = 0
	}
	need := s.needPasses(due)
	return fx, need
}

// needPasses reserves the passes the first due retries need, those with
// a free place but no pass, and returns how many more that is.
func (s *State[In, Out]) needPasses(due int) int {
	need := min(due, s.limit-s.running.Len()-s.promised()) - s.passes - s.reserved
	if need <= 0 {
		return 0
	}
	s.reserved += need
	return need
}

// promised counts the places of the room opened to the pacer before the
// agent, for the items that have not come and those that came now and
// wait to start: none unless the agent is paced.
func (s *State[In, Out]) promised() int {
	if !s.paced {
		return 0
	}
	b := s.batch()
	return (s.open+b-1)/b + s.queued()
}

// room counts the items the agent, behind a pacer, can open room for:
// as many more as it can start as they come, a batch for each place not
// kept for a retry or for the room already open, within the downstream
// demand not yet reserved and the input queue's bound; none in input
// order while the results held reach the limit times the batch size, or
// while a retry due waits for a place, and none once closed. Once the
// first failure has cancelled the rest, the items that come are failed
// at once, and only the downstream demand and the bound count.
func (s *State[In, Out]) room(at time.Time) int {
	if s.closed {
		return 0
	}
	more := min(s.demand-s.assigned-s.held.Len()-s.retrying.Len(), s.queue) - s.queued() - s.open
	if more > 0 && s.cancelled == nil {
		more = min(more, s.roomForBatches(at))
	}
	return more
}

// roomForBatches counts the items the free places can start, a batch a
// place, once the retries due and the room already open have theirs.
func (s *State[In, Out]) roomForBatches(at time.Time) int {
	b := s.batch()
	if !s.unordered && s.held.Len() >= s.limit*b || s.dueBy(at) > s.kept() {
		return 0
	}
	free := s.limit - s.running.Len() - s.kept() - s.promised()
	return max(free, 0) * b
}

// strand makes, behind a pacer, the items that came and could not start
// at once wait for a pass, as retries do: their tokens went as they were
// let through, and a start must not come later than its token. It gives
// their input slots back, and returns need with the passes they need
// added.
func (s *State[In, Out]) strand(fx []agent.Effect, need int, at time.Time) ([]agent.Effect, int) {
	n := s.queued()
	seq := s.started
	items, _, owes := s.take(n, at)
	ones := each(owes)
	for i, it := range items {
		r := retrial[In]{seq: seq + uint64(i), item: it, attempt: 1, due: at}
		if ones != nil {
			r.owes = ones[i : i+1 : i+1]
		}
		s.queueRetry(r)
	}
	more := s.needPasses(s.dueBy(at))
	return append(s.freed(fx), agent.Demand{N: n}), need + more
}

// dueBy counts the retries due by instant at.
func (s *State[In, Out]) dueBy(at time.Time) int {
	return s.retrying.Search(func(q retrial[In]) bool { return q.due.After(at) })
}

// kept counts the places kept free for retries: one for each pass held or
// reserved.
func (s *State[In, Out]) kept() int { return s.passes + s.reserved }

// arm keeps the retry timer at the instant the next retry is due that
// has no pass held or reserved, or disarms it when none waits. A retry
// already due waits for a free place, which the Done of a batch in flight
// brings, or for its pass, not for a timer.
func (s *State[In, Out]) arm(fx []agent.Effect, at time.Time) []agent.Effect {
	k := s.kept() // the first k retries, by due instant, have their passes coming
	if s.retrying.Len() <= k || !s.retrying.At(k).due.After(at) {
		if !s.armed.IsZero() {
			s.armed = time.Time{}
			fx = append(fx, agent.Disarm{Tag: retryTag})
		}
		return fx
	}
	due := s.retrying.At(k).due
	if due.Equal(s.armed) {
		return fx
	}
	s.armed = due
	return append(fx, agent.Timer{Tag: retryTag, Delay: max(due.Sub(at), 0)})
}
