package rate

import (
	"time"

	"github.com/evolvekit/evolve/agent"
)

// Config sets up a rate agent: the bucket's rate and burst, the bound of its
// input queue, and how much each item costs.
//
// The zero Config is not valid: Rate and Burst are required. Queue 0 picks
// agent.DefaultQueue, and a nil Cost makes every item cost 1.
type Config[T any] struct {
	// Rate is the refill rate in tokens per second: positive and finite.
	// Fractions are allowed: 0.5 lets one item of cost 1 through every two
	// seconds.
	Rate float64
	// Burst is the capacity of the bucket, which starts full: at least 1.
	Burst int
	// Queue bounds the items posted but not yet emitted. 0 means
	// agent.DefaultQueue; it must not be negative.
	Queue int
	// Cost returns the tokens an item takes from the bucket. It is called
	// once per item by Post and TryPost, in the caller's goroutine, never by
	// the agent, so a panic in it reaches the caller. Nil means every item
	// costs 1; a cost of 0 also counts as 1. A cost that is negative, NaN or
	// above Burst is refused with [ErrCost].
	Cost func(T) float64
	// Name names the agent in logs. Empty means "rate".
	Name string
	// Shared, when not nil, is a limit this agent shares with others, in
	// this process and others: the agent takes its rate and burst from the
	// shares it is granted, a lease at a time, starting with none. Rate
	// and Burst are then the shared limit's, for the checks of costs; Cost
	// must be nil (every item costs 1), since a share's burst may be 1.
	Shared Shared
	// Key, when not nil, shares the bucket fairly among keys (clients,
	// tenants): it names each item's key, and among the keys with items
	// waiting, items pass in proportion to their Weights (1 for a key not
	// named), each charged the bucket's time for its tokens, each key's in
	// the order they came. See the package doc, Fair shares.
	Key func(T) string
	// Weights weighs the keys' shares of the bucket; a weight below 1, or
	// Weights without a Key, is an error.
	Weights map[string]int
	// Quantum is the bucket's time a key is credited each turn, times its
	// weight. 0 means a millisecond; a negative value is an error.
	Quantum time.Duration
	// KeyQueue bounds, with a Key, the items of one key that Post lets
	// wait, within Queue: so that a flood from one key leaves the others
	// room. 0 means a quarter of the Queue, at least one; a negative value
	// is an error.
	KeyQueue int
}

// limit returns the bucket shape cfg asks for.
func (c Config[T]) limit() Limit { return Limit{Rate: c.Rate, Burst: c.Burst} }

// withDefaults checks c and fills in the default Queue and Name. Its errors
// are [ErrConfig] and name the field at fault.
func (c Config[T]) withDefaults() (Config[T], error) {
	if err := c.limit().check(); err != nil {
		return c, err
	}
	if c.Queue < 0 {
		return c, configError("queue must not be negative, got %d", c.Queue)
	}
	if c.Shared != nil && c.Cost != nil {
		return c, configError("cost must be nil with a shared limit: every item costs 1")
	}
	if _, err := keyLine(c); err != nil {
		return c, err
	}
	if c.KeyQueue < 0 {
		return c, configError("key queue must not be negative, got %d", c.KeyQueue)
	}
	if c.Queue == 0 {
		c.Queue = agent.DefaultQueue
	}
	if c.KeyQueue == 0 {
		c.KeyQueue = max(c.Queue/4, 1)
	}
	if c.Name == "" {
		c.Name = "rate"
	}
	return c, nil
}
