package parallel

import "github.com/evolvekit/evolve/agent"

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
}

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

// name returns the agent's name, with the default filled in.
func (c Config) name() string {
	if c.Name == "" {
		return "parallel"
	}
	return c.Name
}
