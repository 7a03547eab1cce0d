package parallel

import (
	"fmt"
	"slices"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/internal/pace"
)

// Evolve is the parallel agent's whole behaviour, an agent.Evolve over
// [State]. The messages it takes and what it does with them are in the
// package doc (Evolve, Order, Batches). After each message it emits the
// results it may, starts what the limit and the demand allow, behind a
// rate stage makes the items that came and could not start wait for a
// pass and opens room for those it can start, and finishes once input is
// closed and nothing is left.
//
// Evolve is pure and costs O(1) time per item it takes, starts, finishes
// or emits, whatever the limit and the results held (see [State]); a
// failure queued to be tried again, or an item made to wait for a pass,
// costs besides O(log n) time and small allocations, for the n items
// waiting for their retry, and so does starting it.
func Evolve[In, Out any](s State[In, Out], m agent.Msg) (State[In, Out], []agent.Effect) {
	fx := s.Step(m, nil)
	return s, fx
}

// Step is [Evolve] on s, changed in place, with the effects appended to fx
// (which may be nil): for a driver that keeps nothing but the newest State,
// as the runtime does, it copies no State in or out of a step. An agent
// built on this one, as package adaptive's, steps its part with it.
func (s *State[In, Out]) Step(m agent.Msg, fx []agent.Effect) []agent.Effect {
	s.ownLine()
	var at time.Time
	switch m := m.(type) {
	case agent.Input[In]:
		return s.stepInput(&m, fx)
	case agent.Done[[]Result[Out]]:
		return s.stepDone(&m, fx)
	case agent.Pull:
		if m.N < 1 {
			return fx
		}
		s.demand = min(s.demand+m.N, agent.Unbounded)
		at = m.At
	case agent.Set[Limit]:
		if m.Value < 1 {
			return fx
		}
		s.limit, at = int(m.Value), m.At
	case agent.Close:
		s.closed, s.open, at = true, 0, m.At
	case agent.Tick:
		if m.Tag != retryTag {
			return append(fx, agent.Unhandled{})
		}
		s.armed, at = time.Time{}, m.At
	case agent.Event[pace.Pass]:
		n := min(max(m.Value.N, 0), s.reserved)
		s.reserved -= n
		s.passes += n
		at = m.At
	case agent.Event[pace.Paced]:
		s.paced, at = true, m.At
	case agent.Query:
		return append(fx, agent.Reply[Status]{To: m.ID, Value: s.Status()})
	default:
		return append(fx, agent.Unhandled{})
	}
	return s.settle(fx, at)
}

// stepInput is Step for the Input *m, handed unboxed: it queues the items,
// noting when they came.
func (s *State[In, Out]) stepInput(m *agent.Input[In], fx []agent.Effect) []agent.Effect {
	s.ownLine()
	if s.paced {
		s.open = max(s.open-len(m.Items), 0)
	}
	if n := len(m.Items); n > 0 && s.line != nil {
		s.acceptKeyed(m.Items, m.At)
	} else if n > 0 {
		s.waiting = s.waiting.PushAll(m.Items...)
		s.accepted += uint64(n)
		s.arrivals = s.arrivals.Push(arrival{at: m.At, end: s.accepted})
	}
	return s.settle(fx, m.At)
}

// stepDones is stepDone for each of ds, the Dones of one of the runtime's
// rounds, in turn, with what follows a message (settle) done once, after
// the last: the items that may start are shared over all the places the
// Dones freed, and the round pays once for what it would pay for each.
func (s *State[In, Out]) stepDones(ds []agent.Done[[]Result[Out]], fx []agent.Effect) []agent.Effect {
	s.ownLine()
	var at time.Time
	took := false
	for i := range ds {
		var ok bool
		if fx, ok = s.land(&ds[i], fx); ok {
			at, took = ds[i].At, true
		}
	}
	if !took {
		return fx // none was in flight
	}
	return s.settle(fx, at)
}

// stepDone is Step for the Done *m, which the runtime hands it unboxed.
func (s *State[In, Out]) stepDone(m *agent.Done[[]Result[Out]], fx []agent.Effect) []agent.Effect {
	s.ownLine()
	fx, ok := s.land(m, fx)
	if !ok {
		return fx
	}
	return s.settle(fx, m.At)
}

// land takes the batch *m reports out of flight and completes it, and
// reports false, doing nothing, when no such batch is in flight.
func (s *State[In, Out]) land(m *agent.Done[[]Result[Out]], fx []agent.Effect) ([]agent.Effect, bool) {
	f, ok, running := s.running.Take(m.ID)
	if !ok {
		return fx, false
	}
	s.running = running
	return s.complete(m, f, fx), true
}

// The methods below change the State they are called on: Evolve calls
// them on its own copy of the State it was given, which shares with it
// only the persistent containers (package internal/fifo), so that State
// stays as it was, and no State of a few hundred bytes is copied in and
// out of each of them.

// complete counts the results of the batch f, which m reports and which
// the caller took out of flight, and emits them at once if they are next
// and demand allows, or else holds them. The first failure cancels the
// rest when the agent was configured so.
func (s *State[In, Out]) complete(m *agent.Done[[]Result[Out]], f flight[In], fx []agent.Effect) []agent.Effect {
	s.assigned -= f.n
	took := m.Took // the work's own time, when the runtime measured it
	if took <= 0 {
		took = m.At.Sub(f.at)
	}
	s.measured(took, f.n)
	s.settleOwed(f.owes, took)
	rs, failed := results(m.Result, m.Err, f)
	if failed == 0 {
		s.done += len(rs) // the common case: nothing to retry, count or send to the dead letters
	} else {
		rs = s.retryFailed(rs, f, m.At)
		rs = s.moveOn(rs, f, m.At)
		fx = s.count(rs, fx)
		fx = deadLetters(fx, rs, f.id, f.items, f.attempt)
	}
	next := s.unordered && s.held.Len() == 0 || !s.unordered && f.id == s.emitted
	if !next || s.demand < len(rs) || len(rs) < f.n {
		s.held = withResults(s.held, rs, !s.unordered, s.emitted)
		return fx
	}
	// The common case: nothing earlier is missing, so the results go out
	// at once, and in input order with the held ones that follow them.
	s.demand -= len(rs)
	s.emitted += uint64(len(rs))
	if n := min(s.ready(), s.demand); n > 0 {
		out := make([]Result[Out], len(rs), len(rs)+n)
		copy(out, rs)
		rs, s.held = takeHeld(s.held, s.emitted, n, out)
		s.demand -= n
		s.emitted += uint64(n)
	}
	return append(slices.Grow(fx, 4), agent.Emit[Result[Out]]{Values: rs})
}

// count counts finished results and their failures; the first failure of an
// agent that cancels on error asks for agent.Cancel.
func (s *State[In, Out]) count(rs []Result[Out], fx []agent.Effect) []agent.Effect {
	s.done += len(rs)
	for _, r := range rs {
		if r.Err == nil {
			continue
		}
		s.failed++
		if s.firstErr == nil {
			s.firstErr = r.Err
		}
		if s.cancels && s.cancelled == nil {
			s.cancelled = fmt.Errorf("parallel: cancelled after item %d failed: %w", r.Seq, r.Err)
			fx = append(fx, agent.Cancel{Cause: s.cancelled})
		}
	}
	return fx
}

// settle performs what the last message, at instant at, made possible:
// emit, start, ask for the passes the retries due need, behind a pacer
// strand what could not start and open room, arm, finish. fx holds the
// effects the message already asked for.
func (s *State[In, Out]) settle(fx []agent.Effect, at time.Time) []agent.Effect {
	fx = s.emit(fx)
	var need int
	fx, need = s.start(fx, at)
	if s.paced && s.queued() > 0 && s.cancelled == nil {
		fx, need = s.strand(fx, need, at)
	}
	if need > 0 {
		fx = append(fx, pace.Out(pace.Reserve{N: need}))
	}
	if s.paced {
		if more := s.room(at); more > 0 {
			s.open += more
			fx = append(fx, pace.Out(pace.Room{N: more}))
		}
	}
	fx = s.arm(fx, at)
	fx = s.finish(fx)
	return fx
}

// emit passes on the held results that may go out, as far as demand allows.
func (s *State[In, Out]) emit(fx []agent.Effect) []agent.Effect {
	n := min(s.ready(), s.demand)
	if n == 0 {
		return fx
	}
	var out []Result[Out]
	out, s.held = takeHeld(s.held, s.emitted, n, make([]Result[Out], 0, n))
	s.demand -= n
	s.emitted += uint64(n)
	if fx == nil {
		fx = make([]agent.Effect, 0, 4) // room for the Starts and Demand that follow, often
	}
	return append(fx, agent.Emit[Result[Out]]{Values: out})
}

// ready counts the held results that may go out, demand aside: all of them
// when unordered; in input order, those that follow the last one emitted
// without a gap.
func (s *State[In, Out]) ready() int {
	if s.unordered {
		return s.held.Len()
	}
	return s.held.ready(s.emitted)
}

// start starts the retries due that it may, then as many waiting items as
// startable allows, oldest first, in batches, one per free place at most,
// and gives their input slots back. Once the first failure has cancelled
// the rest, it fails them instead. It returns the passes the retries
// waiting for a place need.
func (s *State[In, Out]) start(fx []agent.Effect, at time.Time) ([]agent.Effect, int) {
	if s.cancelled != nil {
		fx = s.abandon(fx, at)
		return fx, 0
	}
	var need int
	fx, need = s.startRetries(fx, at)
	fx = s.startWaiting(fx, at)
	return fx, need
}

// startWaiting starts as many waiting items as startable allows, oldest
// first, in batches, one per free place at most, and gives their input
// slots back.
func (s *State[In, Out]) startWaiting(fx []agent.Effect, at time.Time) []agent.Effect {
	avail := s.startable()
	room := s.limit - s.running.Len() - s.kept()
	if avail == 0 || room <= 0 {
		return fx
	}
	most := s.batch()
	least := s.least(most)
	fx = slices.Grow(fx, min(avail, room)+1)
	n := 0
	for ; avail > 0 && room > 0; room-- {
		k := min(most, avail, max((avail+room-1)/room, least)) // an even share of what is left, not below least
		id := s.started
		items, wait, owes := s.take(k, at)
		s.running = s.running.Put(id, flight[In]{id: id, n: k, at: at, wait: wait, among: s.running.Len() + 1, items: items, attempt: 1, owes: owes})
		fx = append(fx, agent.Start[[]In]{ID: id, Work: items})
		s.assigned += k
		avail -= k
		n += k
	}
	return append(s.freed(fx), agent.Demand{N: n})
}

// abandon fails the waiting items that startable allows, without starting
// them, with the cause of the cancellation, and passes their results on as
// any others.
func (s *State[In, Out]) abandon(fx []agent.Effect, at time.Time) []agent.Effect {
	for s.retrying.Len() > 0 {
		var r retrial[In]
		r, s.retrying = s.retrying.Pop()
		s.settleOwed(r.owes, 0)
		s.done++
		s.failed++
		s.held = withResults(s.held, []Result[Out]{{Seq: r.seq, Err: s.cancelled}}, !s.unordered, s.emitted)
		fx = append(fx, agent.DeadLetter{Seq: r.seq, Item: r.item, Err: s.cancelled, Attempts: r.attempt - 1})
	}
	fx = s.emit(fx)
	n := 0
	for k := s.startable(); k > 0; k = s.startable() {
		seq := s.started
		items, _, owes := s.take(k, at)
		s.settleOwed(owes, 0)
		rs := make([]Result[Out], k)
		for i := range rs {
			rs[i] = Result[Out]{Seq: seq + uint64(i), Err: s.cancelled}
		}
		fx = deadLetters(fx, rs, seq, items, 0)
		s.done += k
		s.failed += k
		s.held = withResults(s.held, rs, !s.unordered, s.emitted)
		fx = s.emit(fx)
		n += k
	}
	if n == 0 {
		return fx
	}
	return append(s.freed(fx), agent.Demand{N: n})
}

// startable counts the waiting items that may start now, room for batches
// aside: no more than the demand not yet reserved by work in flight and
// held results, and, in input order, none while the limit times the batch
// size of results are held.
func (s *State[In, Out]) startable() int {
	if !s.unordered && s.held.Len() >= s.limit*s.batch() {
		return 0
	}
	unreserved := s.demand - s.assigned - s.held.Len() - s.retrying.Len()
	return max(0, min(s.queued(), unreserved))
}

// finish says the agent is done, once: input closed and nothing left.
func (s *State[In, Out]) finish(fx []agent.Effect) []agent.Effect {
	if !s.closed || s.finished || !s.drained() {
		return fx
	}
	s.finished = true
	return append(fx, agent.Finish{Err: s.firstErr})
}

// deadLetters adds an agent.DeadLetter for each failure among rs, the
// final results of items, whose first has Seq first, after attempts tries.
func deadLetters[In, Out any](fx []agent.Effect, rs []Result[Out], first uint64, items []In, attempts int) []agent.Effect {
	for _, r := range rs {
		if r.Err == nil {
			continue
		}
		d := agent.DeadLetter{Seq: r.Seq, Err: r.Err, Attempts: attempts}
		if i := r.Seq - first; i < uint64(len(items)) {
			d.Item = items[i]
		}
		fx = append(fx, d)
	}
	return fx
}
