package chain

import (
	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/internal/core"
	"github.com/evolvekit/evolve/internal/fifo"
	"github.com/evolvekit/evolve/internal/meter"
)

// gate is the state of the overflow gate, the stage that [Options].Gate
// (compose's DropOldest) puts in front of a chain, named "overflow": a
// queue of at most bound items that takes every item posted, dropping the
// oldest when it is full, and passes items on as demand allows. It is a
// value: its queue is persistent (package internal/fifo), so evolving it
// leaves it as it was.
type gate[T any] struct {
	queue    fifo.Queue[T]
	bound    int
	demand   int
	dropped  int
	passed   int
	closed   bool
	finished bool
}

// overflowStatus is the status of the overflow gate.
type overflowStatus struct {
	agent.Load
	Bound   int // the most items it holds
	Dropped int // items dropped to make room for newer ones
}

// evolveGate is the overflow gate's behaviour. Every item posted gives its
// input slot back at once, so Post never waits for the chain; items pass on
// as demand allows, and of those left the queue keeps the newest bound.
func evolveGate[T any](s gate[T], m agent.Msg) (gate[T], []agent.Effect) {
	switch m := m.(type) {
	case agent.Input[T]:
		s.queue = s.queue.PushAll(m.Items...)
		s, fx := s.pass([]agent.Effect{agent.Demand{N: len(m.Items)}})
		if over := s.queue.Len() - s.bound; over > 0 {
			s.queue = s.queue.Drop(over)
			s.dropped += over
		}
		return s, fx
	case agent.Pull:
		s.demand = min(s.demand+max(m.N, 0), agent.Unbounded)
	case agent.Close:
		s.closed = true
	case agent.Query:
		return s, []agent.Effect{agent.Reply[overflowStatus]{To: m.ID, Value: s.status()}}
	default:
		return s, []agent.Effect{agent.Unhandled{}}
	}
	return s.pass(nil)
}

// pass emits what demand allows, and finishes once closed and empty.
func (s gate[T]) pass(fx []agent.Effect) (gate[T], []agent.Effect) {
	if n := min(s.queue.Len(), s.demand); n > 0 {
		var out []T
		out, s.queue = s.queue.Take(n)
		s.demand -= n
		s.passed += n
		fx = append(fx, agent.Emit[T]{Values: out})
	}
	if s.closed && !s.finished && s.queue.Len() == 0 {
		s.finished = true
		fx = append(fx, agent.Finish{})
	}
	return s, fx
}

func (s gate[T]) status() overflowStatus {
	return overflowStatus{
		Load:  agent.Load{Queued: s.queue.Len(), Done: s.passed, Demand: agent.Credit(s.demand)},
		Bound: s.bound, Dropped: s.dropped,
	}
}

// gateStage returns the overflow gate, holding up to bound items.
func gateStage[T any](bound int) core.Stage[T, T] {
	return core.NewStage[T, overflowStatus](core.Spec[gate[T], struct{}, struct{}, T]{
		Name:   "overflow",
		State:  gate[T]{bound: bound},
		Evolve: evolveGate[T],
		Queue:  bound,
		Measure: func(v any) meter.Extra {
			st, _ := v.(overflowStatus)
			return meter.Extra{Dropped: int64(st.Dropped)}
		},
	})
}
