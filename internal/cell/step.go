package cell

import (
	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/internal/safe"
)

// step runs evolve on one stamped message and performs its effects. A panic
// in evolve or in the runtime breaks the agent: it is logged with its stack
// and becomes the agent's error.
func (c *cell[S, I, W, R, O, V]) step(m agent.Msg) { c.stepOn(m, nil, nil) }

// stepDone is step for the Done *d: handed to the spec's StepDone, when it
// has one and the agent records nothing, with no box made for it.
func (c *cell[S, I, W, R, O, V]) stepDone(d *agent.Done[R]) {
	if c.spec.StepDone == nil || c.wire.Tape != nil {
		c.step(*d)
		return
	}
	c.stepOn(nil, d, nil)
}

// stepDones is stepDone for each of ds, the results a round takes in, in
// turn: handed to the spec's StepDones all at once, when it has one, there
// are two or more and the agent records nothing.
func (c *cell[S, I, W, R, O, V]) stepDones(ds []agent.Done[R]) {
	if c.spec.StepDones == nil || c.wire.Tape != nil || len(ds) < 2 {
		for i := range ds {
			c.stepDone(&ds[i])
		}
		return
	}
	c.stepOn(nil, nil, ds)
}

// stepOn is step for m; for *d when d is not nil; for ds, when not nil.
func (c *cell[S, I, W, R, O, V]) stepOn(m agent.Msg, d *agent.Done[R], ds []agent.Done[R]) {
	if c.over {
		return
	}
	defer c.caught()
	if c.wire.Tape != nil {
		c.wire.Tape.Before(m)
	}
	// The slice of the step before, unless a step runs within this one.
	fx := c.fx
	c.fx = nil
	var effects []agent.Effect
	switch {
	case ds != nil:
		effects = c.spec.StepDones(&c.state, ds, fx[:0])
	case d != nil:
		effects = c.spec.StepDone(&c.state, d, fx[:0])
	default:
		effects = c.spec.Apply(&c.state, m, fx[:0])
	}
	if c.wire.Tape != nil {
		c.wire.Tape.After(effects)
	}
	for _, e := range effects {
		if c.over {
			return
		}
		c.perform(e, m)
	}
	clear(effects) // holds nothing the effects carried
	c.fx = effects[:0]
	if c.port.Spent != nil && m != nil && c.wire.Tape == nil {
		c.port.Spent(m)
	}
}

// caught, deferred by step, breaks the agent when its evolve or the
// runtime panicked.
func (c *cell[S, I, W, R, O, V]) caught() {
	if p := recover(); p != nil {
		c.fail(safe.Panic(p))
	}
}
