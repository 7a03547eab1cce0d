// Package echo is the smallest useful agent, for the tests of the
// machinery that runs agents (packages cell and core): it passes input
// through as soon as it holds demand, starts work for items below zero,
// arms (or re-arms) a timer for item 0 and disarms it for [DisarmItem],
// answers queries with its counts, and finishes on Close once nothing is
// left.
package echo

import (
	"context"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/internal/spec"
)

// State is the echo agent's state.
type State struct {
	demand  int
	waiting []int
	running int
	seen    int
	closed  bool
	err     error
	nextID  uint64
	ticks   int
}

// DisarmItem is the item that makes echo disarm its timer.
const DisarmItem = 1 << 30

// Status is what echo answers a query with.
type Status struct {
	Seen, Running, Ticks int
}

// Evolve is the echo agent's behaviour.
func Evolve(s State, m agent.Msg) (State, []agent.Effect) {
	var fx []agent.Effect
	switch m := m.(type) {
	case agent.Input[int]:
		for _, v := range m.Items {
			s.seen++
			switch {
			case v < 0:
				s.nextID++
				s.running++
				fx = append(fx, agent.Start[int]{ID: s.nextID, Work: v}, agent.Demand{N: 1})
			case v == 0:
				fx = append(fx, agent.Timer{Tag: 7, Delay: time.Second}, agent.Demand{N: 1})
			case v == DisarmItem:
				fx = append(fx, agent.Disarm{Tag: 7}, agent.Demand{N: 1})
			default:
				s.waiting = append(s.waiting, v)
			}
		}
	case agent.Done[int]:
		s.running--
		if m.Err != nil && s.err == nil {
			s.err = m.Err
		}
		s.waiting = append(s.waiting, m.Result)
	case agent.Tick:
		s.ticks++
	case agent.Pull:
		s.demand += m.N
	case agent.Close:
		s.closed = true
	case agent.Query:
		return s, []agent.Effect{agent.Reply[Status]{To: m.ID, Value: Status{s.seen, s.running, s.ticks}}}
	default:
		return s, []agent.Effect{agent.Unhandled{}}
	}
	n := min(s.demand, len(s.waiting))
	if n > 0 {
		out := append([]int(nil), s.waiting[:n]...)
		s.waiting = s.waiting[n:]
		s.demand -= n
		fx = append(fx, agent.Emit[int]{Values: out}, agent.Demand{N: n})
	}
	if s.closed && s.running == 0 && len(s.waiting) == 0 {
		fx = append(fx, agent.Finish{Err: s.err})
		s.closed = false
	}
	return s, fx
}

// Spec describes the echo agent with an input queue of queue items; run,
// when not nil, is the work of the items below zero.
func Spec(queue int, run func(context.Context, int) (int, error)) spec.Spec[State, int, int, int] {
	sp := spec.Spec[State, int, int, int]{Name: "echo", Evolve: Evolve, Queue: queue}
	if run != nil {
		sp.Work = func(ctx context.Context, _ uint64, v int) (int, error) { return run(ctx, v) }
	}
	return sp
}
