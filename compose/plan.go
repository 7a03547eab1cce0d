package compose

import (
	"context"

	"sync/atomic"

	"github.com/evolvekit/evolve/agent"
)

// Plan is a chain described but not yet running: it takes items of type I
// and its last stage emits values of type O. Build one with [From] and
// [Then]; run it with [Start]. A Plan is a value: each Start runs new agents.
// The zero Plan is not usable.
type Plan[I, O any] struct {
	stages int
	bound  int // the sum of the stages' input bounds
	first  int // the first stage's input bound
	start  func(rt *agent.Runtime, in agent.Inlet, out agent.Outlet[O]) (started[I], error)
}

// started is a running plan: its first stage, its last, and every stage from
// first to last.
type started[I any] struct {
	head    *agent.Member[I]
	last    puller
	members []member
}

// puller is the last stage of a running plan, as the stage after it sees it.
type puller interface{ Pull(n int) }

// member is a running stage, whatever its types.
type member interface {
	Name() string
	Close()
	Wait(ctx context.Context) error
	Status(ctx context.Context) (any, error)
	LogStatus()
	Stop(ctx context.Context) error
}

// From returns the plan of one stage.
func From[I, O any](s agent.Stage[I, O]) Plan[I, O] {
	start := func(rt *agent.Runtime, in agent.Inlet, out agent.Outlet[O]) (started[I], error) {
		m, err := s.Start(rt, in, out)
		if err != nil {
			return started[I]{}, err
		}
		return started[I]{head: m, last: m, members: []member{m}}, nil
	}
	return Plan[I, O]{stages: 1, bound: s.Queue(), first: s.Queue(), start: start}
}

// Then returns p followed by s: the values p's last stage emits are the items
// s takes.
func Then[I, M, O any](p Plan[I, M], s agent.Stage[M, O]) Plan[I, O] {
	start := func(rt *agent.Runtime, in agent.Inlet, out agent.Outlet[O]) (started[I], error) {
		// s starts first, so it is there when p's last stage passes it
		// values; it gives its input slots back as demand for that stage,
		// which exists before any value flows.
		var before atomic.Pointer[puller]
		next, err := s.Start(rt, agent.Inlet{Demand: func(n int) { (*before.Load()).Pull(n) }}, out)
		if err != nil {
			return started[I]{}, err
		}
		feed := func(values []M) (int, error) {
			next.Feed(values)
			return 0, nil
		}
		st, err := p.start(rt, in, agent.Outlet[M]{Pull: s.Queue(), Deliver: feed, Ended: next.Close})
		if err != nil {
			stopAll([]member{next})
			return started[I]{}, err
		}
		last := st.last
		before.Store(&last)
		st.last = next
		st.members = append(st.members, next)
		return st, nil
	}
	return Plan[I, O]{stages: p.stages + 1, bound: p.bound + s.Queue(), first: p.first, start: start}
}

// Stages returns the number of stages in p.
func (p Plan[I, O]) Stages() int { return p.stages }

// Bound returns the sum of the input bounds of p's stages: no more items than
// this wait in the queues of a chain running p, whatever the producer does.
func (p Plan[I, O]) Bound() int { return p.bound }

// behind returns p with the stage s in front of it: the values s emits are
// the items p's first stage takes.
func behind[I, O any](s agent.Stage[I, I], p Plan[I, O]) Plan[I, O] {
	start := func(rt *agent.Runtime, in agent.Inlet, out agent.Outlet[O]) (started[I], error) {
		var front atomic.Pointer[agent.Member[I]]
		st, err := p.start(rt, agent.Inlet{Demand: func(n int) { front.Load().Pull(n) }}, out)
		if err != nil {
			return started[I]{}, err
		}
		first := st.head
		feed := func(values []I) (int, error) {
			first.Feed(values)
			return 0, nil
		}
		gate, err := s.Start(rt, in, agent.Outlet[I]{Pull: p.first, Deliver: feed, Ended: first.Close})
		if err != nil {
			stopAll(st.members)
			return started[I]{}, err
		}
		front.Store(gate)
		st.head = gate
		st.members = append([]member{gate}, st.members...)
		return st, nil
	}
	return Plan[I, O]{stages: p.stages + 1, bound: p.bound + s.Queue(), first: s.Queue(), start: start}
}

// stopAll stops members that were started for a chain that could not start.
func stopAll(members []member) {
	for _, m := range members {
		_ = m.Stop(context.Background())
	}
}
