package sim

import (
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/internal/core"
)

// ChainConfig is the world a chain is simulated in: how items arrive, how
// long the work of each of its agents takes, for how long, and what to
// record.
//
// The zero ChainConfig is not valid: Arrivals and Duration are required.
type ChainConfig struct {
	// Seed seeds the random sources for arrivals and for service times.
	Seed uint64
	// Capacity says how long a piece of work takes, for each agent of the
	// chain by its position, first to last: a stage an agent package
	// makes is one agent, so Capacity[1] is the work of the middle stage
	// of compose.Pipe3(a, b, c). Each agent's work has a capacity of its
	// own, and a nil Capacity, or none (a slice shorter than the chain),
	// does the work at once: a buffer's flushes, say, take no time unless
	// given a Capacity. It must not be longer than the chain.
	Capacity []Capacity
	// Arrivals says when items arrive at the first agent. Required.
	Arrivals Arrivals
	// Duration is how much virtual time items arrive for. Required, positive.
	Duration time.Duration
	// Drain, when set, closes the chain's input at Duration and runs on
	// until every agent has finished; items still waiting outside are
	// dropped. Otherwise the run stops at Duration with work in flight.
	Drain bool
	// Every is the period of the traces' samples; 0 records none.
	Every time.Duration
	// Demand is the demand the sink grants the last agent when the run
	// starts; 0 means [agent.Unbounded].
	Demand int
	// Workers, when positive, makes the chain's agents that share workers
	// share that many, as compose.WithWorkers does: at the start they are
	// split evenly, and every WorkersPeriod (0 means
	// [DefaultWorkersPeriod]) reallocated by the highest-averages rule
	// over each agent's queue times its service time, each agent's limit
	// set to its share. It must be at least the number of those agents.
	Workers       int
	WorkersPeriod time.Duration
}

// Chain is a chain under simulation: a stage of one agent or of several
// linked (compose.Pipe2, Pipe3, Pipe4), taking items of type I and emitting
// values of type O.
type Chain[I, O any] struct {
	// Stage is the chain. Required. Its agents run as the runtime would
	// run them, with their work done by the stage's own work functions
	// (see [RunChain]).
	Stage agent.Stage[I, O]
	// Item makes the n-th item taken from the backlog (from 0); nil posts
	// zero values.
	Item func(n uint64) I
	// Sink takes each value the chain passes on, with the virtual instant
	// it was emitted at; nil discards them.
	Sink func(at time.Duration, v O)
	// Limit reads an agent's concurrency limit from its status, for the
	// traces; nil records 0. It is called with each agent's status at
	// every sample.
	Limit func(status any) int
}

// StageResult is what a chain run saw of one of the chain's agents.
type StageResult struct {
	// Name is the agent's name; Queue is the bound of its input queue.
	Name  string
	Queue int
	// Messages counts the messages delivered to the agent's evolve.
	Messages int64
	// Taken counts the items handed to the agent; Refused those that the
	// stage's MapIn functions refused on their way in.
	Taken, Refused int64
	// Started and Done count its work started and finished; Emitted the
	// values it emitted, and Declined those of them that its MapOut
	// functions did not pass on (a parallel stage's failed results).
	Started, Done, Emitted, Declined int64
	// Reserved counts the passes it reserved (agent.Reserve), Granted
	// those it granted as a pacer (agent.Grant), and DeadLetters the items
	// it gave up on (agent.DeadLetter): a run has no dead-letter sink.
	Reserved, Granted, DeadLetters int64
	// MaxQueued is the most items the agent held at once, handed to it
	// and not yet given back with Demand: never more than Queue.
	MaxQueued int
	// Finished is true once the agent sent Finish; Err is its error: the
	// one its Finish carried, joined to those of a MapOut function that
	// panicked and of the items its MapIn functions refused.
	Finished bool
	Err      error
	// Status is the agent's status when it finished, or when the run
	// stopped; nil when its evolve gives none.
	Status any
	// Service holds the service time of every piece of its work done.
	Service Histogram
	// Trace holds its periodic samples, if ChainConfig.Every was set.
	Trace Trace
}

// RunChain simulates the chain c in the world cfg describes and returns
// what it saw: each agent's counts, trace and final status in
// Result.Stages; for the chain as a whole the items that Arrived and were
// Posted to its first agent, the work Started and Done by all its agents,
// the values it Emitted (passed on to the sink), the Digest of every
// message delivered, and a Trace whose samples sum those of its agents.
// The package doc says how the agents are linked. Each Start runs the
// stage's own work function at once, with a context that is never
// cancelled, so work under simulation must be quick, pure code (no I/O,
// no sleeping, no clock); a stage without work gets the zero result.
//
// It returns an error wrapping [ErrConfig] when cfg or c is incomplete or
// out of range, or when the chain has an agent that only the runtime can
// run (one that connects outside it, as a remote stage does); the error the
// Validate method of an Arrivals or Capacity of your own returns; and one
// wrapping [ErrBroken], with the result so far, when an agent breaks its
// contract.
//
// RunChain is deterministic: the same cfg and c give the same Result, down
// to the Digest and the bytes of the Traces. It delivers over a million
// messages per second.
func RunChain[I, O any](cfg ChainConfig, c Chain[I, O]) (*Result, error) {
	plan := core.Unwrap(c.Stage).Plan()
	if err := checkChain(cfg, plan); err != nil {
		return nil, err
	}
	r := newChainRunner(cfg, plan, c.Limit)
	r.items = func(from uint64, n int) any {
		items := make([]I, n)
		if c.Item != nil {
			for i := range items {
				items[i] = c.Item(from + uint64(i))
			}
		}
		return items
	}
	if c.Sink != nil {
		r.sink = func(at time.Duration, batch any) {
			for _, v := range batch.([]O) {
				c.Sink(at, v)
			}
		}
	}
	err := r.run()
	return &r.res, err
}

// checkChain reports the first setting of cfg, or of the chain plan
// describes, that is out of range.
func checkChain(cfg ChainConfig, plan core.Plan) error {
	if len(plan.Agents) == 0 {
		return invalid("the zero Stage cannot run; make one with an agent package's Stage")
	}
	if err := checkRun(cfg.Arrivals, cfg.Duration, cfg.Every, cfg.Demand); err != nil {
		return err
	}
	switch {
	case len(cfg.Capacity) > len(plan.Agents):
		return invalid("capacities must not outnumber the chain's %d agents, got %d", len(plan.Agents), len(cfg.Capacity))
	}
	for _, a := range plan.Agents {
		switch {
		case a.Outside:
			return invalid("agent %s connects outside the runtime, which a simulation cannot", a.Name)
		case a.Queue < 1:
			return invalid("agent %s: queue must be at least 1, got %d", a.Name, a.Queue)
		}
	}
	if err := checkWorkers(cfg, plan); err != nil {
		return err
	}
	for _, c := range cfg.Capacity {
		if c == nil {
			continue
		}
		if err := verify(c); err != nil {
			return err
		}
	}
	return verify(cfg.Arrivals)
}
