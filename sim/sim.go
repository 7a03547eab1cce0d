package sim

import (
	"time"

	"github.com/evolvekit/evolve/agent"
)

// Epoch is the instant virtual time starts at: a message delivered at
// virtual time d is stamped Epoch.Add(d).
var Epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// Config is the world an agent is simulated in: how work arrives, how long
// it takes, for how long, and what to record.
//
// The zero Config is not valid: Capacity, Arrivals and Duration are
// required.
type Config struct {
	// Seed seeds the random sources for arrivals and for service times.
	Seed uint64
	// Capacity says how long each piece of work takes. Required.
	Capacity Capacity
	// Arrivals says when items arrive. Required.
	Arrivals Arrivals
	// Duration is how much virtual time items arrive for. Required, positive.
	Duration time.Duration
	// Drain, when set, closes the agent's input at Duration and runs on
	// until the agent finishes; items still waiting outside are dropped.
	// Otherwise the run stops at Duration with work in flight.
	Drain bool
	// Every is the period of the trace's samples; 0 records none.
	Every time.Duration
	// Demand is the demand granted downstream when the run starts; 0 means
	// [agent.Unbounded]. A run with less leaves the rest to the agent's
	// promises: it emits no more than it was granted, or Run reports
	// [ErrBroken].
	Demand int
}

// Agent is the agent under simulation, with the types of its state S, the
// items it takes I, the work its Start effects carry W, the result that
// work returns R, and the values it emits O.
type Agent[S, I, W, R, O any] struct {
	// State is the agent's initial state.
	State S
	// Evolve is the agent's behaviour. Required.
	Evolve agent.Evolve[S]
	// Queue is the bound of the agent's input queue: the input slots the
	// simulated feeder starts with. Required, at least 1.
	Queue int
	// Item makes the n-th item posted (from 0); nil posts zero values.
	Item func(n uint64) I
	// Work is what a piece of work returns; nil returns the zero R and no
	// error. It is called when the work starts and must be deterministic.
	Work func(W) (R, error)
	// Limit reads the agent's concurrency limit for the trace; nil records 0.
	Limit func(S) int
}

// Result is what a run saw: of one agent ([Run]), or of a chain
// ([RunChain]), whose agents each have a [StageResult] in Stages.
type Result struct {
	// Trace holds the periodic samples, if Config.Every was set.
	Trace Trace
	// Digest is a hash of every event of the run, in order: two runs that
	// agree on it delivered the same messages at the same instants.
	Digest uint64
	// Messages counts the messages delivered to the agent's evolve (to
	// those of all its agents, for a chain).
	Messages int64
	// Arrived counts the items that arrived, Posted those handed to the
	// agent, Started, Done and Emitted the work started and finished and the
	// values emitted.
	Arrived, Posted, Started, Done, Emitted int64
	// End is the virtual time the run stopped at.
	End time.Duration
	// Finished is true when the agent sent Finish (every agent, for a
	// chain); Err is what it carried (their errors, each prefixed with the
	// agent's name, joined).
	Finished bool
	Err      error
	// Service holds the service time of every piece of work done, from its
	// Start to its Done (for a chain, that of each agent is in Stages).
	Service Histogram
	// Stages holds what a chain run saw of each agent, first to last; nil
	// for a run of one agent.
	Stages []StageResult
}

// Throughput returns the values emitted per second of virtual time.
func (r *Result) Throughput() float64 {
	if r.End <= 0 {
		return 0
	}
	return float64(r.Emitted) / r.End.Seconds()
}

// Run simulates a in the world cfg describes and returns what it saw. It
// returns an error naming the setting when cfg or a is incomplete or out of
// range (errors.Is(err, ErrConfig)), the error the Validate method of an
// Arrivals or Capacity of your own returns, and one wrapping [ErrBroken],
// with the result so far, when the agent breaks its contract.
//
// Run is deterministic: the same cfg and a give the same Result, down to the
// Digest and the bytes of the Trace. It allocates little per message and
// delivers a few million messages per second.
func Run[S, I, W, R, O any](cfg Config, a Agent[S, I, W, R, O]) (*Result, error) {
	if err := check(cfg, a.Evolve != nil, a.Queue); err != nil {
		return nil, err
	}
	r := newRunner(cfg, a)
	err := r.run()
	return &r.res, err
}

// check reports the first setting of cfg, or of the agent, out of range.
func check(cfg Config, evolve bool, queue int) error {
	if cfg.Capacity == nil {
		return invalid("capacity must not be nil")
	}
	if err := checkRun(cfg.Arrivals, cfg.Duration, cfg.Every, cfg.Demand); err != nil {
		return err
	}
	switch {
	case !evolve:
		return invalid("evolve must not be nil")
	case queue < 1:
		return invalid("queue must be at least 1, got %d", queue)
	}
	if err := verify(cfg.Capacity); err != nil {
		return err
	}
	return verify(cfg.Arrivals)
}

// checkRun reports the first out of range of the settings a Config and a
// ChainConfig share.
func checkRun(arrivals Arrivals, duration, every time.Duration, demand int) error {
	switch {
	case arrivals == nil:
		return invalid("arrivals must not be nil")
	case duration <= 0:
		return invalid("duration must be positive, got %v", duration)
	case every < 0:
		return invalid("sample period must not be negative, got %v", every)
	case demand < 0:
		return invalid("demand must not be negative, got %d", demand)
	}
	return nil
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
