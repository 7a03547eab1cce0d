package buffer

import "github.com/evolvekit/evolve/agent"

// Evolve is the buffer agent's behaviour: given its state and one message, the
// next state and the effects to perform. It is pure, as [agent.Evolve]
// requires.
//
// It takes [agent.Input] items into the open batch, cuts batches by size, by
// linger [agent.Tick] and on [agent.Close], starts one flush at a time while
// it holds [agent.Pull] demand (giving the batch's input slots back with
// [agent.Demand]), emits a batch when its flush's [agent.Done] reports
// success, answers [agent.Query] with a [Status], and returns [agent.Finish]
// once closed and empty. Other messages, stale ticks and unknown Done IDs
// leave the state unchanged and ask for nothing.
func Evolve[T any](s State[T], m agent.Msg) (State[T], []agent.Effect) {
	var fx []agent.Effect
	switch m := m.(type) {
	case agent.Input[T]:
		s = s.take(m)
	case agent.Tick:
		if m.Tag != s.gen || !s.armed {
			return s, nil
		}
		s.armed = false // this timer has fired: nothing to disarm
		s = s.cut()
	case agent.Done[struct{}]:
		if s.flight == nil || m.ID != s.started {
			return s, nil
		}
		s, fx = s.land(m)
	case agent.Pull:
		if m.N < 1 {
			return s, nil
		}
		s.demand = min(s.demand+m.N, agent.Unbounded)
	case agent.Close:
		s.closed = true
	case agent.Query:
		return s, []agent.Effect{agent.Reply[Status]{To: m.ID, Value: s.Status()}}
	default:
		return s, nil
	}
	return s.settle(fx)
}

// settle runs after every message that may change what is due: it cuts the
// open batch once input has closed, disarms the linger timer of a batch
// cut early, arms the one of the open batch, starts the next
// flush, and finishes.
func (s State[T]) settle(fx []agent.Effect) (State[T], []agent.Effect) {
	if s.closed {
		s = s.cut()
	}
	s, fx = s.disarm(fx)
	s, fx = s.arm(fx)
	s, fx = s.flush(fx)
	return s.finish(fx)
}

// finish returns Finish, once, when input has closed and every accepted item
// has been flushed and emitted or has failed.
func (s State[T]) finish(fx []agent.Effect) (State[T], []agent.Effect) {
	if !s.closed || s.finished || s.busy() {
		return s, fx
	}
	s.finished = true
	return s, append(fx, agent.Finish{Err: s.err})
}
