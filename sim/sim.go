package sim

import (
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/internal/core"
	"github.com/evolvekit/evolve/internal/slab"
)

// Epoch is the instant virtual time starts at: a message delivered at
// virtual time d is stamped Epoch.Add(d).
var Epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// Config is the world a run takes place in: how items arrive, how long the
// work of each agent takes, for how long, and what to record.
//
// The zero Config is not valid: Arrivals and Duration are required.
type Config struct {
	// Seed seeds the random sources for arrivals and for service times.
	Seed uint64
	// Capacity says how long a piece of work takes, for each agent of the
	// stage by its position, first to last: a lone agent's is Capacity[0],
	// and a stage an agent package makes is one agent, so Capacity[1] is
	// the work of the middle stage of compose.Pipe3(a, b, c). Each agent's
	// work has a capacity of its own, and a nil Capacity, or none (a slice
	// shorter than the chain), does the work at once: a buffer's flushes,
	// say, take no time unless given a Capacity. A [Sharing] serves the
	// agent's work by processor sharing. It must not be longer than the
	// chain.
	Capacity []Capacity
	// Arrivals says when items arrive at the first agent. Required.
	Arrivals Arrivals
	// Duration is how much virtual time items arrive for. Required, positive.
	Duration time.Duration
	// Drain, when set, closes the first agent's input at Duration and runs
	// on until every agent has finished; items still waiting outside are
	// dropped. Otherwise the run stops at Duration with work in flight.
	Drain bool
	// Every is the period of the traces' samples; 0 records none.
	Every time.Duration
	// Demand is the demand the sink grants the last agent when the run
	// starts; 0 means [agent.Unbounded]. A run with less leaves the rest to
	// the agent's promises: it emits no more than it was granted, or Run
	// reports [ErrBroken].
	Demand int
	// Workers, when positive, makes the chain's agents that share workers
	// share that many, as compose.WithWorkers does: at the start they are
	// split evenly, and every WorkersPeriod (0 means
	// [DefaultWorkersPeriod]) reallocated by the highest-averages rule
	// over each agent's queue times its service time (the queue of an
	// agent behind a rate stage counting what waits for it there), each
	// agent's limit set to its share. It must be at least the number of
	// those agents.
	Workers       int
	WorkersPeriod time.Duration
}

// Chain is what a run simulates: a stage of one agent (parallel.Stage,
// adaptive.Stage, or spawn.Stage for an evolve function of your own) or of
// several linked (compose.Pipe2, Pipe3, Pipe4), taking items of type I and
// emitting values of type O.
type Chain[I, O any] struct {
	// Stage is the agent, or the agents, under simulation. Required. They
	// run as the runtime would run them, with their work done by the
	// stage's own work functions (see [Run]).
	Stage agent.Stage[I, O]
	// Item makes the n-th item taken from the backlog (from 0); nil posts
	// zero values.
	Item func(n uint64) I
	// Sink takes each value the last agent passes on, with the virtual
	// instant it was emitted at; nil discards them.
	Sink func(at time.Duration, v O)
	// Limit reads an agent's concurrency limit from its status, for the
	// traces; nil records 0. It is called with each agent's status at
	// every sample.
	Limit func(status any) int
}

// Run simulates the agents of c in the world cfg describes and returns
// what it saw: for each agent, in Result.Agents, its counts, trace and
// final status; for the run as a whole the items that Arrived and were
// Posted to the first agent, the work Started and Done by all the agents,
// the values Emitted (passed on to the sink), the Digest of every message
// delivered, and a Trace whose samples sum those of the agents. The
// package doc says how the agents are linked. Each Start runs the stage's
// own work function at once, with a context that is never cancelled, so
// work under simulation must be quick, pure code (no I/O, no sleeping, no
// clock); a stage without work gets the zero result.
//
// It returns an error wrapping [ErrConfig] that names the setting when cfg
// or c is incomplete or out of range, or when the stage has an agent that
// only the runtime can run (one that connects outside it, as a remote
// stage does); the error the Validate method of an Arrivals or Capacity of
// your own returns; and one wrapping [ErrBroken], with the result so far,
// when an agent breaks its contract.
//
// Run is deterministic: the same cfg and c give the same Result, down to
// the Digest and the bytes of the Traces. It delivers millions of
// messages a second (see the package doc, Cost).
func Run[I, O any](cfg Config, c Chain[I, O]) (*Result, error) {
	plan := core.Unwrap(c.Stage).Plan()
	if err := check(cfg, plan); err != nil {
		return nil, err
	}
	r := newRunner(cfg, plan, c.Limit)
	var cut slab.Slab[I]
	var heads slab.Slab[agent.Emit[I]]
	r.items = func(from uint64, n int) any {
		items := cut.Cut(n)[:n]
		if c.Item != nil {
			for i := range items {
				items[i] = c.Item(from + uint64(i))
			}
		}
		return core.Batch(&heads, items)
	}
	if c.Sink != nil {
		r.sink = func(at time.Duration, batch any) {
			for _, v := range core.Values[O](batch) {
				c.Sink(at, v)
			}
		}
	}
	err := r.run()
	return &r.res, err
}

// check reports the first setting of cfg, or of the agents plan
// describes, that is out of range.
func check(cfg Config, plan core.Plan) error {
	switch {
	case len(plan.Agents) == 0:
		return invalid("the zero Stage cannot run; make one with an agent package's Stage")
	case cfg.Arrivals == nil:
		return invalid("arrivals must not be nil")
	case cfg.Duration <= 0:
		return invalid("duration must be positive, got %v", cfg.Duration)
	case cfg.Every < 0:
		return invalid("sample period must not be negative, got %v", cfg.Every)
	case cfg.Demand < 0:
		return invalid("demand must not be negative, got %d", cfg.Demand)
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

// verify checks the settings of an Arrivals or a Capacity: those of this
// package (or embedded in one of the user's) with their validate method, and
// the user's own with their Validate method, if they have one.
func verify(v any) error {
	if c, ok := v.(interface{ validate() error }); ok {
		if err := c.validate(); err != nil {
			return err
		}
	}
	if c, ok := v.(interface{ Validate() error }); ok {
		return c.Validate()
	}
	return nil
}
