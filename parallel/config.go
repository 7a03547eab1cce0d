package parallel

import (
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/internal/fair"
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
	// Retry tries an item whose work failed again, after a backoff. The
	// zero Retry tries each item once.
	Retry Retry
	// MaxMoves is how many times an item's work may ask it to go on with
	// the state it reached, by returning remote.Move's error (see the
	// package doc, under Moves), before the item fails for good with an
	// error wrapping ErrMoves. 0 means DefaultMaxMoves; a negative value is
	// an error.
	MaxMoves int
	// DeadLetters, when not nil, takes each item that failed for good:
	// the item, its error and its attempts. Its failed Result still goes
	// to the sink in its place, and Wait's error, an
	// *agent.DeadLettersError, says how many went there. It is called on
	// the agent's goroutine. A stage of a chain without one hands its dead
	// letters to the chain's (compose.WithDeadLetters).
	DeadLetters func(agent.DeadLetter)
	// Key, when not nil, shares the agent's work fairly among keys
	// (clients, tenants): it must be a func(In) string, for the agent's
	// item type In, that names each item's key; another value is an
	// ErrConfig. See the package doc, Fair shares.
	Key any
	// Weights weighs the keys' shares of the work: a key's share against
	// another's is its weight to theirs. A key not in it weighs 1; a
	// weight below 1, or Weights without a Key, is an error.
	Weights map[string]int
	// Quantum is the work a key is credited each turn, times its weight:
	// the bound of the fair shares. 0 means [DefaultQuantum]; a negative
	// value is an error.
	Quantum time.Duration
	// KeyQueue bounds, with a Key, the items of one key that Post lets
	// wait to start, within the agent's Queue: so that a flood from one
	// key leaves the others room. 0 means a quarter of the Queue, at least
	// one; a negative value is an error.
	KeyQueue int
}

// DefaultQuantum is the quantum of [Config.Quantum] when it is 0: a key's
// turn lasts a millisecond of work.
const DefaultQuantum = fair.DefaultQuantum

// Retry says how a failed item is tried again. Between two attempts the
// item waits a backoff drawn at random between zero and a cap, full
// jitter: the cap is Backoff for the first retry and doubles for each
// one after, up to MaxBackoff. An error wrapping an
// [agent.RetryAfterError] makes the wait at least its After. The wait is a
// timer of the agent's, never a sleep inside the work, and the random
// draws come from a generator seeded with Seed and kept in the State, so
// Evolve stays pure and a run repeats with its seed.
type Retry struct {
	// Attempts is how many times an item is tried in all; 0 or 1 is once.
	Attempts int
	// Backoff is the cap of the first wait. Default DefaultBackoff.
	Backoff time.Duration
	// MaxBackoff bounds the cap. Default DefaultMaxBackoff.
	MaxBackoff time.Duration
	// If says whether a failure is worth another attempt. Nil retries
	// every failure but a cancellation (context.Canceled), such as the one
	// CancelOnError brings.
	If func(error) bool
	// Seed seeds the generator the waits are drawn from.
	Seed uint64
}

// The defaults of Retry.
const (
	DefaultBackoff    = 100 * time.Millisecond
	DefaultMaxBackoff = 10 * time.Second
)

// DefaultMaxMoves is [Config.MaxMoves] when it is 0: as many moves as a
// remote stage allows an item by default.
const DefaultMaxMoves = 16

// DefaultMaxBatch is the most items one worker takes at once when
// [Config.MaxBatch] is 0.
const DefaultMaxBatch = 64

// BatchSpan is about how long the agent lets one batch take: it takes no
// more items at once than have taken BatchSpan so far, on average.
const BatchSpan = 100 * time.Microsecond

// ShareSpan is about the least work the agent hands one worker when it
// shares the items that may start among the free places: no batch holds
// fewer items than have taken ShareSpan so far, on average, while that many
// may start. Sharing out less costs more in hand-overs than the parallel
// work gains.
const ShareSpan = 10 * time.Microsecond

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
	case c.MaxMoves < 0:
		return invalid("max moves must not be negative, got %d", c.MaxMoves)
	case c.Retry.Attempts < 0:
		return invalid("retry attempts must not be negative, got %d", c.Retry.Attempts)
	case c.Retry.Backoff < 0:
		return invalid("retry backoff must not be negative, got %v", c.Retry.Backoff)
	case c.Retry.MaxBackoff < 0:
		return invalid("retry max backoff must not be negative, got %v", c.Retry.MaxBackoff)
	case c.Quantum < 0:
		return invalid("quantum must not be negative, got %v", c.Quantum)
	case c.KeyQueue < 0:
		return invalid("key queue must not be negative, got %d", c.KeyQueue)
	case c.Key == nil && len(c.Weights) > 0:
		return invalid("weights need a key")
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
	if c.Quantum == 0 {
		c.Quantum = DefaultQuantum
	}
	if c.KeyQueue == 0 {
		c.KeyQueue = max(c.Queue/4, 1)
	}
	if c.Retry.Attempts == 0 {
		c.Retry.Attempts = 1
	}
	if c.MaxMoves == 0 {
		c.MaxMoves = DefaultMaxMoves
	}
	if c.Retry.Backoff == 0 {
		c.Retry.Backoff = DefaultBackoff
	}
	if c.Retry.MaxBackoff == 0 {
		c.Retry.MaxBackoff = max(DefaultMaxBackoff, c.Retry.Backoff)
	}
	return c
}
