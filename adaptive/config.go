package adaptive

import (
	"math"
	"time"

	"github.com/evolvekit/evolve/parallel"

	"github.com/evolvekit/evolve/agent"
)

// DefaultMax is the highest limit when a Config leaves Max at zero.
const DefaultMax = 256

// Config configures an adaptive agent.
//
// The zero Config is valid: the limit starts at 1 and is chosen between 1
// and [DefaultMax] by a zero [Hill], the agent is named "adaptive", its
// input queue holds [agent.DefaultQueue] items, results come out in input
// order, items have no deadline and a failure cancels nothing.
type Config struct {
	// Name names the agent in logs; "" means "adaptive".
	Name string
	// Min and Max bound the limit the controller may choose. Min 0 means 1;
	// Max 0 means DefaultMax. Otherwise 1 <= Min <= Max.
	Min, Max int
	// Initial is the limit the agent starts with; 0 means Min. It must lie
	// between Min and Max.
	Initial int
	// Queue bounds the items posted but not yet started: Post blocks and
	// TryPost fails while it is full. 0 means [agent.DefaultQueue]; a
	// negative value is an error.
	Queue int
	// Unordered emits each result as soon as it is finished, instead of in
	// input order.
	Unordered bool
	// Controller chooses the limit from the samples of completed work (see
	// the package doc); nil means a zero [Hill]. A Hill's settings are
	// checked, and so is a Controller of your own with a Validate() error
	// method; what is wrong is reported as an [ErrConfig].
	Controller Controller
	// Seed seeds the random source kept in the agent's State, from which the
	// controller draws (to pick a direction to probe in, say).
	Seed uint64
	// Timeout, when positive, is each item's deadline, as parallel.Config's
	// Timeout is. 0 means none; a negative value is an error.
	Timeout time.Duration
	// CancelOnError makes the first failure cancel the rest, as
	// parallel.Config's CancelOnError does.
	CancelOnError bool
	// Retry tries an item whose work failed again, after a backoff, as
	// parallel.Config's Retry does.
	Retry parallel.Retry
	// DeadLetters takes each item that failed for good, as
	// parallel.Config's DeadLetters does.
	DeadLetters func(agent.DeadLetter)
	// Key, Weights, Quantum and KeyQueue share the agent's work fairly
	// among keys (clients, tenants), as parallel.Config's do.
	Key      any
	Weights  map[string]int
	Quantum  time.Duration
	KeyQueue int
}

// Limit is the setting that changes a running agent's limit by hand: the
// payload of the agent.Set[Limit] message that [SetLimit] sends.
// Evolve ignores a Limit below 1 and brings one outside [Min, Max] within
// them; the controller carries on from the new limit.
type Limit int

// validate reports the first setting of c that is out of range.
func (c Config) validate() error {
	lo, hi := c.bounds()
	switch {
	case c.Min < 0:
		return invalid("min must be at least 1, got %d", c.Min)
	case c.Max < 0 || c.Max > math.MaxInt32:
		return invalid("max must be between 1 and %d, got %d", math.MaxInt32, c.Max)
	case hi < lo:
		return invalid("max must be at least min (%d), got %d", lo, hi)
	case c.Initial != 0 && (c.Initial < lo || c.Initial > hi):
		return invalid("initial must be between min (%d) and max (%d), got %d", lo, hi, c.Initial)
	case c.Queue < 0:
		return invalid("queue must not be negative, got %d", c.Queue)
	case c.Timeout < 0:
		return invalid("timeout must not be negative, got %v", c.Timeout)
	}
	switch v := c.Controller.(type) {
	case Hill:
		return badController(v.validate())
	case interface{ Validate() error }:
		return badController(v.Validate())
	}
	return nil
}

// bounds returns Min and Max with their defaults filled in.
func (c Config) bounds() (lo, hi int) {
	lo, hi = max(c.Min, 1), c.Max
	if hi == 0 {
		hi = DefaultMax
	}
	return lo, hi
}

// initial returns the starting limit, with its default filled in.
func (c Config) initial() int {
	if c.Initial == 0 {
		lo, _ := c.bounds()
		return lo
	}
	return c.Initial
}

// controller returns the controller, with its default filled in.
func (c Config) controller() Controller {
	if c.Controller == nil {
		return Hill{}
	}
	return c.Controller
}

// queue returns the input bound c asks for, with the default filled in.
func (c Config) queue() int {
	if c.Queue == 0 {
		return agent.DefaultQueue
	}
	return c.Queue
}

// keyQueue returns the bound of one key's items, with the default filled
// in: a quarter of the queue, at least one.
func (c Config) keyQueue() int {
	if c.KeyQueue == 0 {
		return max(c.queue()/4, 1)
	}
	return c.KeyQueue
}

// name returns the agent's name, with the default filled in.
func (c Config) name() string {
	if c.Name == "" {
		return "adaptive"
	}
	return c.Name
}
