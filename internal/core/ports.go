package core

import (
	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/internal/safe"
)

// ports are where an agent's input slots, output and completion go: to its
// handle and a sink when it runs alone, to its neighbours when it is a stage
// of a chain.
type ports[O any] struct {
	pull     int                    // the demand the agent holds when it starts
	deliver  func([]O) (int, error) // takes emitted values; says how many it refused
	demand   func(n int)            // takes input slots given back
	upstream bool                   // demand goes to another agent, not to Post
	ended    func()                 // called once, after the agent finished or failed
	dead     func(agent.DeadLetter) // takes the dead letters; nil drops them
	reserve  func(n int)            // takes the passes it reserves; nil grants them at once
	room     func(n int)            // takes the room it opens: demand for the pacer before it; nil drops it
	grant    func(n int)            // takes the passes it grants the agent after it
	paced    bool                   // the agent after it reserves passes of it
	tape     Tape                   // where it records its steps; nil when it records none
	gather   bool                   // deliver once a round (see Outlet.Gather)
}

// alone returns the ports of an agent that runs on its own: unbounded demand,
// values to sink (nil discards them), input slots back to h's Post.
func alone[I, V, O any](h *Agent[I, V], sink func(O)) ports[O] {
	return ports[O]{pull: agent.Unbounded, deliver: sinkDeliver(sink), demand: h.grant}
}

// sinkDeliver hands values to sink one at a time; a value whose sink call
// panics is lost, the others are not, and the first panic is returned.
func sinkDeliver[O any](sink func(O)) func([]O) (int, error) {
	if sink == nil {
		return func([]O) (int, error) { return 0, nil }
	}
	return func(values []O) (int, error) {
		var first error
		for i := 0; i < len(values); i++ {
			if err := sinkFrom(sink, values, &i); err != nil && first == nil {
				first = err
			}
		}
		return 0, first
	}
}

// sinkFrom hands values to sink from *i on, under one deferred recover
// rather than one a value. A panic leaves *i at the value whose call
// panicked, and returns it as an error.
func sinkFrom[O any](sink func(O), values []O, i *int) (err error) {
	defer safe.Recover(&err)
	for ; *i < len(values); *i++ {
		sink(values[*i])
	}
	return nil
}
