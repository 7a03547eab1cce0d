package core

import (
	"time"

	"github.com/evolvekit/evolve/agent"
)

// Tape is where one agent of a recorded chain writes down its steps
// (package internal/record writes them; package replay reads them back).
// The agent's cell calls it on its own goroutine only, in this order: for
// each message, Before as evolve is about to take it and After with the
// effects evolve returned (no After when evolve panicked); then Final, once,
// with the status the agent ends with; then Close.
type Tape interface {
	// Before records m, stamped, as the agent's next step.
	Before(m agent.Msg)
	// After records the effects evolve returned for the step's message.
	After(fx []agent.Effect)
	// Final records the status evolve gave at instant at; ok is false
	// when it gave none.
	Final(at time.Time, status any, ok bool)
	// Close says the agent has ended: nothing more is recorded.
	Close()
}

// Recorder hands out the tapes of the agents of one recorded chain.
type Recorder interface {
	// Tape returns the tape of the agent at position at of the chain,
	// named name, from 0; nil when that agent is not recorded.
	Tape(at int, name string) Tape
}

// Recording is what an Inlet carries of a Recorder: the Recorder and the
// position in the recorded chain of the stage's first agent. A negative
// position is that of an agent not recorded, one a chain puts in front of
// those it records (compose's DropOldest gate). The zero Recording records
// nothing, so a cell that does not record holds a nil Tape and pays one
// nil check a step.
type Recording struct {
	Recorder Recorder
	At       int
}

// past returns the Recording of the stage after the agents plan describes.
func (rec Recording) past(plan func() Plan) Recording {
	if rec.Recorder != nil {
		rec.At += len(plan().Agents)
	}
	return rec
}

// open returns the tape of the stage's first agent, named name; nil when
// it is not recorded.
func (rec Recording) open(name string) Tape {
	if rec.Recorder == nil || rec.At < 0 {
		return nil
	}
	return rec.Recorder.Tape(rec.At, name)
}
