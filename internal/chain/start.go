package chain

import (
	"io"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/internal/bridge"
	"github.com/evolvekit/evolve/internal/core"
)

// Options say what [Start] puts around a chain's stage. The caller has
// checked them; the zero Options start the stage alone.
type Options struct {
	// Name names the chain in its log events.
	Name string
	// Gate puts the overflow gate in front of the stage, holding up to
	// the bound of the stage's first agent (see gate).
	Gate bool
	// DeadLetters takes the dead letters of the agents that have no sink
	// of their own, on their goroutines; nil drops them.
	DeadLetters func(agent.DeadLetter)
	// Record, when not nil, is where the chain records every step of its
	// agents but the gate's (see package record). The error Wait returns
	// wraps RecordFailed when the recording could not be written.
	Record       io.Writer
	RecordFailed error
	// Workers, when above 0, is the budget of workers shared among the
	// agents that share them (core.Plan.Sharing), at least one each, given
	// out again every Period (budget.DefaultPeriod when 0).
	Workers int
	Period  time.Duration
}

// Start runs s on rt with what o puts around it, its last agent's values
// going to sink (see core.SinkOutlet), and returns the running chain. It
// returns the error of a stage that could not start, such as
// agent.ErrClosed once rt has shut down.
func Start[I, O any](rt *agent.Runtime, s core.Stage[I, O], o Options, sink func(O)) (*Chain[I], error) {
	parts := bridge.Runtime(rt)
	if o.Gate {
		s = core.Link(gateStage[I](s.First()), s)
	}
	rec, recording := startRecorder(o, parts.Clock, s)
	run, err := s.Start(rt, core.Inlet{DeadLetters: o.DeadLetters, Record: recording}, core.SinkOutlet(sink))
	if err != nil {
		abandon(rec)
		return nil, err
	}
	c := newChain(o.Name, parts.Log, run, s.Bound())
	c.seal(rec, o.RecordFailed)
	c.count()
	if o.Workers > 0 {
		c.workers = startWorkers(o, parts.Clock, c.log, s.Plan(), run.Members, c.done)
	}
	return c, nil
}
