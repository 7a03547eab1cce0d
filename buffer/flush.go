package buffer

import "github.com/evolvekit/evolve/agent"

// flush starts the flush of the oldest batch waiting, if none runs and
// downstream will take one more batch. The batch's items leave the input
// queue now, so their slots are given back.
func (s *State[T]) flush(fx []agent.Effect) []agent.Effect {
	if s.flight != nil || len(s.ready) == 0 || s.demand < 1 {
		return fx
	}
	s.flight, s.ready = s.ready[0], s.ready[1:]
	s.started++
	return append(fx,
		agent.Start[[]T]{ID: s.started, Work: s.flight},
		agent.Demand{N: len(s.flight)})
}

// flushed ends the running flush. A batch whose flush succeeded is
// emitted, using the unit of demand its start reserved; a failed one is
// counted, the first failure is kept for Finish, and each of its items
// goes to the dead letters, with its position among the items the agent
// took as its Seq.
func (s *State[T]) flushed(m agent.Done[struct{}], fx []agent.Effect) []agent.Effect {
	batch := s.flight
	s.flight = nil
	first := s.done
	s.done += len(batch)
	if m.Err != nil {
		s.lost++
		s.failed += len(batch)
		if s.err == nil {
			s.err = m.Err
		}
		for i, v := range batch {
			fx = append(fx, agent.DeadLetter{Seq: uint64(first + i), Item: v, Err: m.Err, Attempts: 1})
		}
		return fx
	}
	s.emitted++
	s.demand--
	return append(fx, agent.Emit[[]T]{Values: [][]T{batch}})
}
