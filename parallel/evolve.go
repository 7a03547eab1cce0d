package parallel

import (
	"slices"
	"time"

	"github.com/evolvekit/evolve/agent"
)

// Evolve is the parallel agent's whole behaviour, an [agent.Evolve] over
// [State]. Its work is a [Batch]: it starts work with agent.Start[Batch[In]]
// effects, whose ID is the Seq of the batch's first item, and takes its
// results back as agent.Done[[]Result[Out]]. It takes these messages:
//
//   - agent.Input[In] queues items, each numbered with its Seq; input after
//     Close is accepted too.
//   - agent.Done[[]Result[Out]] finishes the batch started under that ID:
//     one result per item, in order (an item without a result fails with
//     the Done's Err, or with an error saying it has none). A Done for an ID
//     not in flight is ignored.
//   - agent.Pull grants demand; agent.Set[Limit] changes the limit (a limit
//     below 1 is ignored); agent.Close ends the input.
//   - agent.Query is answered with an agent.Reply[Status] and changes nothing.
//
// Any other message leaves the state as it is and asks for nothing.
//
// After each message Evolve emits the results it may (in input order unless
// the agent is unordered, and no more than the demand it holds), then starts
// waiting items while fewer than the limit of batches are in flight and the
// demand not yet reserved by work in flight or held results allows, giving
// their input slots back with one agent.Demand, and, once input is closed and
// nothing is left, finishes with the first failure it saw. A batch holds one
// item until a batch has finished; then as many as took [RunSpan], on
// average, in the batches so far (measured from the At of the message that
// started a batch to the At of its Done), at most [Config.Run], and at most
// an even share of the items that may start among the free places. In input
// order, no work starts while as many results as the limit times that batch
// size wait for an earlier one, so a slow item holds back a bounded number
// of results.
//
// Evolve is pure and costs time proportional to the batches in flight and
// the results held, plus the items it starts or emits. The States it returns
// share memory with the State it was given, so two States evolved from one
// must not be evolved on two goroutines at once.
func Evolve[In, Out any](s State[In, Out], m agent.Msg) (State[In, Out], []agent.Effect) {
	var at time.Time
	var fx []agent.Effect
	switch m := m.(type) {
	case agent.Input[In]:
		s, at = s.accept(m.Items), m.At
	case agent.Done[[]Result[Out]]:
		i, ok := s.flightOf(m.ID)
		if !ok {
			return s, nil
		}
		s, fx = s.complete(m, i)
		at = m.At
	case agent.Pull:
		if m.N < 1 {
			return s, nil
		}
		s.demand = min(s.demand+m.N, agent.Unbounded)
		at = m.At
	case agent.Set[Limit]:
		if m.Value < 1 {
			return s, nil
		}
		s.limit, at = int(m.Value), m.At
	case agent.Close:
		s.closed, at = true, m.At
	case agent.Query:
		return s, []agent.Effect{agent.Reply[Status]{To: m.ID, Value: s.Status()}}
	default:
		return s, nil
	}
	return s.settle(fx, at)
}

// accept queues items, in order.
func (s State[In, Out]) accept(items []In) State[In, Out] {
	for _, in := range items {
		s.waiting = s.waiting.Push(in)
	}
	s.accepted += uint64(len(items))
	return s
}

// complete takes the batch at index i of running, which m reports, out of
// flight, counts its results and emits them at once if they are next and
// demand allows, or else holds them.
func (s State[In, Out]) complete(m agent.Done[[]Result[Out]], i int) (State[In, Out], []agent.Effect) {
	f := s.running.At(i)
	s.running = s.running.Remove(i)
	s.assigned -= f.n
	s = s.measured(m.At.Sub(f.at), f.n)
	rs := results(m, f)
	s.done += len(rs)
	for _, r := range rs {
		if r.Err != nil {
			s.failed++
			if s.firstErr == nil {
				s.firstErr = r.Err
			}
		}
	}
	next := s.unordered && s.held.Len() == 0 || !s.unordered && f.id == s.emitted
	if !next || s.demand < len(rs) {
		s.held = withResults(s.held, rs, !s.unordered)
		return s, nil
	}
	// The common case: nothing earlier is missing, so the results go out
	// at once, and in input order with the held ones that follow them.
	s.demand -= len(rs)
	s.emitted += uint64(len(rs))
	if n := min(s.ready(), s.demand); n > 0 {
		out := make([]Result[Out], len(rs), len(rs)+n)
		copy(out, rs)
		for range n {
			var r Result[Out]
			r, s.held = s.held.Pop()
			out = append(out, r)
		}
		rs = out
		s.demand -= n
		s.emitted += uint64(n)
	}
	return s, append(make([]agent.Effect, 0, 4), agent.Emit[Result[Out]]{Values: rs})
}

// settle performs what the last message, at instant at, made possible:
// emit, start, finish. fx holds the effects the message already asked for.
func (s State[In, Out]) settle(fx []agent.Effect, at time.Time) (State[In, Out], []agent.Effect) {
	s, fx = s.emit(fx)
	s, fx = s.start(fx, at)
	s, fx = s.finish(fx)
	return s, fx
}

// emit passes on the held results that may go out, as far as demand allows.
func (s State[In, Out]) emit(fx []agent.Effect) (State[In, Out], []agent.Effect) {
	n := min(s.ready(), s.demand)
	if n == 0 {
		return s, fx
	}
	var out []Result[Out]
	out, s.held = s.held.Take(n)
	s.demand -= n
	s.emitted += uint64(n)
	if fx == nil {
		fx = make([]agent.Effect, 0, 4) // room for the Starts and Demand that follow, often
	}
	return s, append(fx, agent.Emit[Result[Out]]{Values: out})
}

// ready counts the held results that may go out, demand aside: all of them
// when unordered; in input order, those that follow the last one emitted
// without a gap.
func (s State[In, Out]) ready() int {
	if s.unordered {
		return s.held.Len()
	}
	n := 0
	for n < s.held.Len() && s.held.At(n).Seq == s.emitted+uint64(n) {
		n++
	}
	return n
}

// start starts as many waiting items as startable allows, oldest first, in
// batches, one per free place at most, and gives their input slots back.
func (s State[In, Out]) start(fx []agent.Effect, at time.Time) (State[In, Out], []agent.Effect) {
	avail := s.startable()
	room := s.limit - s.running.Len()
	if avail == 0 || room <= 0 {
		return s, fx
	}
	most := s.batch()
	fx = slices.Grow(fx, min(avail, room)+1)
	n := 0
	for ; avail > 0 && room > 0; room-- {
		k := min(most, (avail+room-1)/room) // an even share of what is left
		var items []In
		items, s.waiting = s.waiting.Take(k)
		s.running = s.running.Push(flight{id: s.started, n: k, at: at})
		fx = append(fx, agent.Start[Batch[In]]{ID: s.started, Work: Batch[In]{Seq: s.started, Items: items}})
		s.started += uint64(k)
		s.assigned += k
		avail -= k
		n += k
	}
	return s, append(fx, agent.Demand{N: n})
}

// startable counts the waiting items that may start now, room for batches
// aside: no more than the demand not yet reserved by work in flight and
// held results, and, in input order, none while the limit times the batch
// size of results are held.
func (s State[In, Out]) startable() int {
	if !s.unordered && s.held.Len() >= s.limit*s.batch() {
		return 0
	}
	unreserved := s.demand - s.assigned - s.held.Len()
	return max(0, min(s.waiting.Len(), unreserved))
}

// finish says the agent is done, once: input closed and nothing left.
func (s State[In, Out]) finish(fx []agent.Effect) (State[In, Out], []agent.Effect) {
	if !s.closed || s.finished || !s.drained() {
		return s, fx
	}
	s.finished = true
	return s, append(fx, agent.Finish{Err: s.firstErr})
}
