package parallel

import (
	"slices"

	"github.com/evolvekit/evolve/agent"
)

// Evolve is the parallel agent's whole behaviour, an [agent.Evolve] over
// [State]. It takes these messages:
//
//   - agent.Input[In] queues items, each numbered with its Seq; input after
//     Close is accepted too.
//   - agent.Done[Out] finishes the work started under that ID; a Done for an
//     ID not in flight is ignored.
//   - agent.Pull grants demand; agent.Set[Limit] changes the limit (a limit
//     below 1 is ignored); agent.Close ends the input.
//   - agent.Query is answered with an agent.Reply[Status] and changes nothing.
//
// Any other message leaves the state as it is and asks for nothing.
//
// After each message Evolve emits the results it may (in input order unless
// the agent is unordered, and no more than the demand it holds), then starts
// waiting items while fewer than the limit are in flight and the demand not
// yet reserved by work in flight or held results allows, giving their input
// slots back with one agent.Demand, and, once input is closed and nothing is
// left, finishes with the first failure it saw. In input order, no work
// starts while as many results as the limit wait for an earlier one, so a
// slow item holds back a bounded number of results.
//
// Evolve is pure and costs time proportional to the work in flight and the
// results held, plus the items it starts or emits.
func Evolve[In, Out any](s State[In, Out], m agent.Msg) (State[In, Out], []agent.Effect) {
	switch m := m.(type) {
	case agent.Input[In]:
		s = s.accept(m.Items)
	case agent.Done[Out]:
		if !s.isRunning(m.ID) {
			return s, nil
		}
		s = s.complete(m)
	case agent.Pull:
		if m.N < 1 {
			return s, nil
		}
		s.demand = min(s.demand+m.N, agent.Unbounded)
	case agent.Set[Limit]:
		if m.Value < 1 {
			return s, nil
		}
		s.limit = int(m.Value)
	case agent.Close:
		s.closed = true
	case agent.Query:
		return s, []agent.Effect{agent.Reply[Status]{To: m.ID, Value: s.Status()}}
	default:
		return s, nil
	}
	return s.settle()
}

// accept queues items, in order.
func (s State[In, Out]) accept(items []In) State[In, Out] {
	for _, in := range items {
		s.waiting = s.waiting.Push(in)
	}
	s.accepted += uint64(len(items))
	return s
}

// complete takes the work m reports out of flight and holds its result.
func (s State[In, Out]) complete(m agent.Done[Out]) State[In, Out] {
	s.running = s.running.Remove(s.runningAt(m.ID))
	s.held = withResult(s.held, Result[Out]{Seq: m.ID, Value: m.Result, Err: m.Err}, !s.unordered)
	s.done++
	if m.Err != nil {
		s.failed++
		if s.firstErr == nil {
			s.firstErr = m.Err
		}
	}
	return s
}

// settle performs what the last message made possible: emit, start, finish.
func (s State[In, Out]) settle() (State[In, Out], []agent.Effect) {
	var fx []agent.Effect
	s, fx = s.emit(fx)
	s, fx = s.start(fx)
	s, fx = s.finish(fx)
	return s, fx
}

// emit passes on the held results that may go out, as far as demand allows.
func (s State[In, Out]) emit(fx []agent.Effect) (State[In, Out], []agent.Effect) {
	n := min(s.ready(), s.demand)
	if n == 0 {
		return s, fx
	}
	out := make([]Result[Out], n)
	for i := range out {
		out[i], s.held = s.held.Pop()
	}
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

// start starts as many waiting items as startable allows, oldest first, and
// gives their input slots back.
func (s State[In, Out]) start(fx []agent.Effect) (State[In, Out], []agent.Effect) {
	n := s.startable()
	if n == 0 {
		return s, fx
	}
	fx = slices.Grow(fx, n+2)
	for range n {
		var in In
		in, s.waiting = s.waiting.Pop()
		s.running = s.running.Push(s.started)
		fx = append(fx, agent.Start[In]{ID: s.started, Work: in})
		s.started++
	}
	return s, append(fx, agent.Demand{N: n})
}

// startable counts the waiting items that may start now: no more than the
// limit has room for, no more than the demand not yet reserved by work in
// flight and held results, and, in input order, none while Limit results are
// held.
func (s State[In, Out]) startable() int {
	if !s.unordered && s.held.Len() >= s.limit {
		return 0
	}
	room := s.limit - s.running.Len()
	unreserved := s.demand - s.running.Len() - s.held.Len()
	return max(0, min(s.waiting.Len(), room, unreserved))
}

// finish says the agent is done, once: input closed and nothing left.
func (s State[In, Out]) finish(fx []agent.Effect) (State[In, Out], []agent.Effect) {
	if !s.closed || s.finished || !s.drained() {
		return s, fx
	}
	s.finished = true
	return s, append(fx, agent.Finish{Err: s.firstErr})
}
