package parallel

import (
	"time"

	"github.com/evolvekit/evolve/agent"
)

// Config configures a parallel agent. The zero Config is not valid: Limit is
// required; every other field's zero value is a sensible default.
type Config struct {
	// Name names the agent in logs; "" means "parallel".
	Name string
	// Limit is the most items worked on at once. Required, at least 1. It
	// can be changed while the agent runs with [SetLimit].
	Limit int
	// Queue bounds the items accepted but not yet started: Post blocks and
	// TryPost fails while it is full. 0 means agent.DefaultQueue; a
	// negative value is an error.
	Queue int
	// Unordered emits each result as soon as it is finished, instead of in
	// input order.
	Unordered bool
	// MaxBatch is the most items a worker takes at once (see the package
	// doc, Batches). 0 means [DefaultMaxBatch]; 1 turns batches off; a
	// negative value is an error.
	MaxBatch int
	// Timeout, when positive, is each item's deadline: its work's context
	// ends after it, and an item whose work returns after it fails with
	// context.DeadlineExceeded. 0 means none; a negative value is an error.
	Timeout time.Duration
	// CancelOnError makes the first failure cancel the rest: the context of
	// the work in flight ends, and the items not yet started fail at once.
	CancelOnError bool
}

// DefaultMaxBatch is the most items one worker takes at once when
// [Config.MaxBatch] is 0.
const DefaultMaxBatch = 64

// BatchSpan is about how long the agent lets one batch take: it takes no
// more items at once than have taken BatchSpan so far, on average.
const BatchSpan = 100 * time.Microsecond

// Limit is the setting that changes a running agent's limit: the payload of
// the agent.Set[Limit] message that [SetLimit] sends. Evolve ignores a Limit
// below 1.
type Limit int

// validate reports the first setting of c that is out of range.
func (c Config) validate() error {
	if err := checkLimit(c.Limit); err != nil {
		return err
	}
	switch {
	case c.Queue < 0:
		return invalid("queue must not be negative, got %d", c.Queue)
	case c.MaxBatch < 0:
		return invalid("max batch must not be negative, got %d", c.MaxBatch)
	case c.Timeout < 0:
		return invalid("timeout must not be negative, got %v", c.Timeout)
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

// withDefaults returns c with its defaults filled in.
func (c Config) withDefaults() Config {
	if c.Name == "" {
		c.Name = "parallel"
	}
	if c.Queue == 0 {
		c.Queue = agent.DefaultQueue
	}
	if c.MaxBatch == 0 {
		c.MaxBatch = DefaultMaxBatch
	}
	return c
}
