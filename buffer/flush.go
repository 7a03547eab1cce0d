package buffer

import "github.com/evolvekit/evolve/agent"

// flush starts the flush of the oldest batch waiting, if none runs and
// downstream will take one more batch. The batch's items leave the input
// queue now, so their slots are given back.
func (s State[T]) flush(fx []agent.Effect) (State[T], []agent.Effect) {
	if s.flight != nil || len(s.ready) == 0 || s.demand < 1 {
		return s, fx
	}
	s.flight, s.ready = s.ready[0], s.ready[1:]
	s.started++
	return s, append(fx,
		agent.Start[[]T]{ID: s.started, Work: s.flight},
		agent.Demand{N: len(s.flight)})
}

// flushed ends the running flush. A batch whose flush succeeded is
// emitted, using the unit of demand its start reserved; a failed one is
// counted and dropped, and the first failure is kept for Finish.
func (s State[T]) flushed(m agent.Done[struct{}]) (State[T], []agent.Effect) {
	batch := s.flight
	s.flight = nil
	s.done += len(batch)
	if m.Err != nil {
		s.lost++
		s.failed += len(batch)
		if s.err == nil {
			s.err = m.Err
		}
		return s, nil
	}
	s.emitted++
	s.demand--
	return s, []agent.Effect{agent.Emit[[]T]{Values: [][]T{batch}}}
}
