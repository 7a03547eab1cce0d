package cell

import (
	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/internal/tape"
	"github.com/evolvekit/evolve/internal/trace"
)

// Wiring is where a running agent's input slots, values and completion go:
// to its handle and a sink when it runs alone, to its neighbours when it is
// a stage of a chain (package core wires both). A field left zero takes the
// default its comment names, so the zero Wiring is an agent on its own whose
// values are discarded.
type Wiring[O any] struct {
	Pull     int                    // the demand it holds as it starts; below 1, agent.Unbounded (0 when Paced)
	Deliver  func([]O) (int, error) // takes emitted values; says how many it refused; nil discards them
	Demand   func(n int)            // takes input slots given back; nil gives them back to its own Post
	upstream bool                   // Demand goes to another agent, not to Post (set by settled)
	Ended    func()                 // called once, after it finished, failed or drained; nil does nothing
	Dead     func(agent.DeadLetter) // takes the dead letters, unless its Spec has a sink; nil drops them
	Reserve  func(n int)            // takes the passes it reserves; nil grants them at once
	Room     func(n int)            // takes the room it opens: demand for the pacer before it; nil drops it
	Grant    func(n int)            // takes the passes it grants the agent after it
	Paced    bool                   // the agent after it reserves passes of it
	Tape     tape.Tape              // where it records its steps; nil when it records none
	Gather   bool                   // deliver once a round, not once an Emit
	Hand     *trace.Hand            // where its values' span contexts go; nil for none
}

// settled returns w with the defaults its zero fields stand for; grant
// gives input slots back to the agent's own Post.
func (w Wiring[O]) settled(grant func(n int)) Wiring[O] {
	switch {
	case w.Paced:
		w.Pull = 0 // its demand is the room the agent after it opens
	case w.Pull < 1:
		w.Pull = agent.Unbounded
	}
	if w.Deliver == nil {
		w.Deliver = func([]O) (int, error) { return 0, nil }
	}
	w.upstream = w.Demand != nil
	if w.Demand == nil {
		w.Demand = grant
	}
	return w
}
