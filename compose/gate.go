package compose

import (
	"github.com/evolvekit/evolve/agent"
	"github.com/rs/zerolog"
)

// gate is the state of the stage that [DropOldest] puts in front of a chain:
// a queue of at most bound items that takes every item posted, dropping the
// oldest when it is full, and passes items on as demand allows.
type gate[T any] struct {
	queue    []T
	bound    int
	demand   int
	dropped  int
	passed   int
	closed   bool
	finished bool
}

// OverflowStatus is the status of the "overflow" stage that [DropOldest]
// puts in front of a chain.
type OverflowStatus struct {
	Bound   int // the most items it holds
	Queued  int // items waiting for the first stage to take them
	Dropped int // items dropped to make room for newer ones
	Passed  int // items passed on
	Demand  int // items the first stage will still take
	Closed  bool
}

// MarshalZerologObject writes st as the fields of one zerolog object.
func (st OverflowStatus) MarshalZerologObject(e *zerolog.Event) {
	e.Int("bound", st.Bound).Int("queued", st.Queued).Int("dropped", st.Dropped).
		Int("passed", st.Passed).Int("demand", st.Demand).Bool("closed", st.Closed)
}

// evolveGate is the overflow stage's behaviour. Every item posted gives its
// input slot back at once, so Post never waits for the chain; items pass on
// as demand allows, and of those left the queue keeps the newest bound.
func evolveGate[T any](s gate[T], m agent.Msg) (gate[T], []agent.Effect) {
	switch m := m.(type) {
	case agent.Input[T]:
		s.queue = append(s.queue, m.Items...)
		s, fx := s.pass([]agent.Effect{agent.Demand{N: len(m.Items)}})
		if over := len(s.queue) - s.bound; over > 0 {
			s.queue = s.queue[over:]
			s.dropped += over
		}
		return s, fx
	case agent.Pull:
		s.demand = min(s.demand+max(m.N, 0), agent.Unbounded)
	case agent.Close:
		s.closed = true
	case agent.Query:
		return s, []agent.Effect{agent.Reply[OverflowStatus]{To: m.ID, Value: s.status()}}
	default:
		return s, nil
	}
	return s.pass(nil)
}

// pass emits what demand allows, and finishes once closed and empty.
func (s gate[T]) pass(fx []agent.Effect) (gate[T], []agent.Effect) {
	if n := min(len(s.queue), s.demand); n > 0 {
		out := make([]T, n)
		copy(out, s.queue)
		s.queue = s.queue[n:]
		s.demand -= n
		s.passed += n
		fx = append(fx, agent.Emit[T]{Values: out})
	}
	if s.closed && !s.finished && len(s.queue) == 0 {
		s.finished = true
		fx = append(fx, agent.Finish{})
	}
	return s, fx
}

func (s gate[T]) status() OverflowStatus {
	return OverflowStatus{Bound: s.bound, Queued: len(s.queue), Dropped: s.dropped, Passed: s.passed, Demand: s.demand, Closed: s.closed}
}

// gateStage returns the overflow stage, holding up to bound items.
func gateStage[T any](bound int) agent.Stage[T, T] {
	return agent.NewStage(agent.Spec[gate[T], T, struct{}, struct{}, T, OverflowStatus]{
		Name:   "overflow",
		State:  gate[T]{bound: bound},
		Evolve: evolveGate[T],
		Queue:  bound,
	})
}
