package parallel

import (
	"time"

	"github.com/evolvekit/evolve/agent"
)

// Config configures a parallel agent.
//
// The zero Config is not valid: Limit is required. Every other field's zero
// value is a sensible default: the agent is named "parallel", its input
// queue holds [agent.DefaultQueue] items, and results come out in input
// order.
type Config struct {
	// Name names the agent in logs; "" means "parallel".
	Name string
	// Limit is the most work items in flight at once. Required, at least 1.
	// It can be changed while the agent runs with [Agent.SetLimit].
	Limit int
	// Queue bounds the items posted but not yet started: Post blocks and
	// TryPost fails while it is full. 0 means [agent.DefaultQueue]; a
	// negative value is an error.
	Queue int
	// Unordered emits each result as soon as it is finished, instead of in
	// input order.
	Unordered bool
	// Run is the most items one worker takes from the queue at once, to
	// work on one after another (see [Batch]). Quick work then costs one
	// hand-over per batch instead of one per item; at most Limit items are
	// still worked on at once. 0 means [DefaultRun]. The agent sizes each
	// batch from the time its items have taken so far, so that a batch
	// takes about [RunSpan], and no larger than an even share of the items
	// it may start: work that takes RunSpan or more always goes one item at
	// a time, as it does before any has finished. 1 means one at a time
	// always; a negative value is an error.
	Run int
}

// DefaultRun is the most items one worker takes at once when
// [Config.Run] is 0.
const DefaultRun = 64

// RunSpan is about how long the agent lets one [Batch] take: it takes no
// more items at once than have taken RunSpan so far, on average.
const RunSpan = 100 * time.Microsecond

// Limit is the setting that changes a running agent's limit: the payload of
// the agent.Set[Limit] message that [Agent.SetLimit] sends. Evolve ignores a
// Limit below 1.
type Limit int

// validate reports the first setting of c that is out of range.
func (c Config) validate() error {
	if err := checkLimit(c.Limit); err != nil {
		return err
	}
	if c.Queue < 0 {
		return invalid("queue must not be negative, got %d", c.Queue)
	}
	if c.Run < 0 {
		return invalid("run must not be negative, got %d", c.Run)
	}
	return nil
}

// checkLimit reports a concurrency limit below 1.
func checkLimit(n int) error {
	if n < 1 {
		return invalid("limit must be at least 1, got %d", n)
	}
	return nil
}

// queue returns the input bound c asks for, with the default filled in.
func (c Config) queue() int {
	if c.Queue == 0 {
		return agent.DefaultQueue
	}
	return c.Queue
}

// run returns the most items a batch may hold, with the default filled in.
func (c Config) run() int {
	if c.Run == 0 {
		return DefaultRun
	}
	return c.Run
}

// name returns the agent's name, with the default filled in.
func (c Config) name() string {
	if c.Name == "" {
		return "parallel"
	}
	return c.Name
}
