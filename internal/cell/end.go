package cell

import (
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/internal/meter"
	"github.com/evolvekit/evolve/internal/safe"
	"github.com/evolvekit/evolve/internal/spec"
)

// finish ends the agent after its Finish: it takes the final status, lets
// the workers go, passes its completion on and tells the actor to stop. An
// agent whose failed items went to a dead-letter sink ends with an
// *agent.DeadLettersError saying how many.
func (c *cell[S, I, W, R, O, V]) finish(err error) {
	c.flush() // what it emitted first goes before its end, a sink's panic with it
	if c.dead > 0 {
		err = &agent.DeadLettersError{Agent: c.spec.Name, N: c.dead, First: c.first}
	}
	c.over, c.final = true, true
	final, ok := c.finalStatus()
	c.h.conclude(err, final, ok)
	c.disarmAll()
	c.end()
}

// fail breaks the agent: its evolve panicked or broke the contract. It is
// logged, becomes the agent's error, and the agent ends. So that the agents
// before it can still drain, a broken agent in a chain takes whatever it is
// sent and drops it.
func (c *cell[S, I, W, R, O, V]) fail(err error) {
	if c.over {
		return
	}
	c.flush()
	c.over = true
	ev := c.h.log.Error().Err(err)
	if pe, ok := err.(*agent.PanicError); ok {
		ev = ev.Bytes("stack", pe.Stack)
	}
	ev.Msg("agent failed")
	var zero V
	c.h.conclude(err, zero, false)
	c.disarmAll()
	if c.wire.upstream {
		c.wire.Demand(agent.Unbounded)
	}
	if c.wire.Room != nil {
		c.wire.Room(agent.Unbounded) // a pacer before it takes its demand from here
	}
	c.end()
}

// end passes the agent's completion on to whatever follows it, once.
func (c *cell[S, I, W, R, O, V]) end() {
	c.flush()
	if c.wire.Ended != nil && !c.ended {
		c.ended = true
		c.wire.Ended()
	}
}

// finalStatus takes the status the agent ends with, as statusAt does, and
// records it if the agent records.
func (c *cell[S, I, W, R, O, V]) finalStatus() (V, bool) {
	now := c.h.rt.Clock.Now()
	v, ok := c.statusAt(now)
	if c.wire.Tape != nil {
		c.wire.Tape.Final(now, v, ok)
	}
	return v, ok
}

// statusAt asks evolve for the agent's status at instant now.
func (c *cell[S, I, W, R, O, V]) statusAt(now time.Time) (v V, ok bool) {
	_ = safe.Do(func() {
		_, fx := c.spec.Evolve(c.state, agent.Query{At: now})
		for _, e := range fx {
			if r, is := e.(agent.Reply[V]); is {
				v, ok = r.Value, true
			}
		}
	})
	return v, ok
}

// release lets go of the state and of everything the cell held, once the
// actor is gone.
func (c *cell[S, I, W, R, O, V]) release() {
	c.state = *new(S)
	c.crew.spare, c.spare, c.timers, c.port, c.first = nil, nil, nil, spec.Port{}, agent.DeadLetter{}
	c.items, c.outbox, c.woke, c.inline = nil, outbox[O]{}, nil, nil
	c.waits = meter.Waits{}
	c.h.in.mu.Lock()
	c.crew.results = nil
	c.h.in.mu.Unlock()
}
