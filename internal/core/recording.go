package core

import "github.com/evolvekit/evolve/internal/tape"

// Recorder hands out the tapes of the agents of one recorded chain.
type Recorder interface {
	// Tape returns the tape of the agent at position at of the chain,
	// named name, from 0; nil when that agent is not recorded.
	Tape(at int, name string) tape.Tape
}

// Recording is what an Inlet carries of a Recorder: the Recorder and the
// position in the recorded chain of the stage's first agent. A negative
// position is that of an agent not recorded, one a chain puts in front of
// those it records (package chain's overflow gate). The zero Recording records
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
func (rec Recording) open(name string) tape.Tape {
	if rec.Recorder == nil || rec.At < 0 {
		return nil
	}
	return rec.Recorder.Tape(rec.At, name)
}
