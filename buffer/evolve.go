package buffer

import "github.com/evolvekit/evolve/agent"

// Evolve is the buffer agent's behaviour: given its state and one message, the
// next state and the effects to perform. It is pure, as agent.Evolve
// requires. The package doc says what it does; the messages it takes are:
//
//   - agent.Input[T], or agent.Input[Item[T]] when batches are cut by
//     weight: items for the open batch;
//   - agent.Tick: the linger timer of the open batch (a stale one is
//     ignored);
//   - agent.Done[struct{}]: the end of the flush it started with an
//     agent.Start[[]T] (one for another ID is ignored);
//   - agent.Pull, agent.Close, and agent.Query, answered with an
//     agent.Reply[Status].
//
// It returns [agent.Unhandled] for any other message.
func Evolve[T any](s State[T], m agent.Msg) (State[T], []agent.Effect) {
	fx := s.step(m, nil)
	return s, fx
}

// step is Evolve on s, changed in place, with the effects appended to fx:
// the runtime's way in, which copies no State in or out.
func (s *State[T]) step(m agent.Msg, fx []agent.Effect) []agent.Effect {
	switch m := m.(type) {
	case agent.Input[T]:
		return s.stepInput(&m, fx)
	case agent.Input[Item[T]]:
		s.takeWeighed(m.Items, m.At)
	case agent.Tick:
		if m.Tag != s.gen || !s.armed {
			return fx
		}
		s.armed = false // this timer has fired: nothing to disarm
		s.cut()
	case agent.Done[struct{}]:
		if s.flight == nil || m.ID != s.started {
			return fx
		}
		fx = s.flushed(m, fx)
	case agent.Pull:
		if m.N < 1 {
			return fx
		}
		s.demand += min(m.N, agent.Unbounded-s.demand)
	case agent.Close:
		s.closed = true
	case agent.Query:
		return append(fx, agent.Reply[Status]{To: m.ID, Value: s.Status()})
	default:
		return append(fx, agent.Unhandled{})
	}
	return s.settle(fx)
}

// stepInput is step for the Input *m, which a simulator hands it unboxed.
func (s *State[T]) stepInput(m *agent.Input[T], fx []agent.Effect) []agent.Effect {
	s.take(m.Items, m.At)
	return s.settle(fx)
}

// settle runs after every message that may change what is due: it cuts the
// open batch once input has closed, disarms the linger timer of a batch
// cut early, arms the one of the open batch, starts the next flush, and
// finishes.
func (s *State[T]) settle(fx []agent.Effect) []agent.Effect {
	if s.closed {
		s.cut()
	}
	fx = s.disarm(fx)
	fx = s.arm(fx)
	fx = s.flush(fx)
	return s.finish(fx)
}

// finish returns Finish, once, when input has closed and every accepted item
// has been flushed and emitted or has failed.
func (s *State[T]) finish(fx []agent.Effect) []agent.Effect {
	if !s.closed || s.finished || s.busy() {
		return fx
	}
	s.finished = true
	return append(fx, agent.Finish{Err: s.err})
}
