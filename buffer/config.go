package buffer

import (
	"time"

	"github.com/evolvekit/evolve/agent"
)

// Config sets the shape of the batches and the bound of the input queue. A
// batch is cut when it holds Size items, when it weighs MaxWeight, when its
// oldest item has waited MaxWait, and on Close.
//
// The zero Config is not valid: Size or MaxWeight is required. MaxWait 0
// means no linger time, Queue 0 picks a default bound, and an empty Name
// means "buffer".
type Config[T any] struct {
	// Size is the most items in a batch: at least 1, or 0 for no bound by
	// count when MaxWeight is set. With Size 0, a batch that holds Queue
	// items is cut whatever it weighs: no more items could join it.
	Size int
	// MaxWeight, when positive, is the most a batch weighs, as Weight
	// weighs its items (bytes, say): a batch is cut once it weighs
	// MaxWeight, and before an item that would take it over. An item
	// heavier than MaxWeight goes out in a batch of its own. 0 means no
	// bound by weight; it must not be negative.
	MaxWeight int
	// Weight weighs an item, for MaxWeight; it is required with MaxWeight
	// and not used without. It is called once per item as the item enters
	// the agent (by Post and TryPost in the caller's goroutine, or as an
	// earlier stage passes it on), never by the agent's evolve, so a panic
	// in it reaches the caller. A negative weight is refused with
	// [ErrWeight].
	Weight func(T) int
	// MaxWait is how long the oldest item of a partial batch may wait before
	// the batch is cut and flushed anyway. 0 means no linger: a partial batch
	// waits for more items or for Close. It must not be negative.
	MaxWait time.Duration
	// Queue bounds the items accepted but not yet handed to a flush: those of
	// the open batch and those of batches waiting for their flush. Post blocks
	// and TryPost fails while it is full. 0 means
	// max(agent.DefaultQueue, 2*Size); otherwise it must be at least Size, or
	// a full batch could never form.
	Queue int
	// Name names the agent in logs. Empty means "buffer".
	Name string
	// DeadLetters, when not nil, takes each item of a batch whose flush
	// failed, with the flush's error, and Wait's error, an
	// *agent.DeadLettersError, says how many went there. It is called on
	// the agent's goroutine. A stage of a chain without one hands its dead
	// letters to the chain's (compose.WithDeadLetters).
	DeadLetters func(agent.DeadLetter)
}

// withDefaults checks c and fills in the default Queue and Name. Its errors
// are [ErrConfig] and name the field at fault.
func (c Config[T]) withDefaults() (Config[T], error) {
	switch {
	case c.Size < 0:
		return c, invalid("size must be at least 1, got %d", c.Size)
	case c.MaxWeight < 0:
		return c, invalid("max weight must not be negative, got %d", c.MaxWeight)
	case c.Size == 0 && c.MaxWeight == 0:
		return c, invalid("size must be at least 1, got 0, unless max weight is set")
	case c.MaxWeight > 0 && c.Weight == nil:
		return c, invalid("max weight %d needs a weight function", c.MaxWeight)
	case c.MaxWait < 0:
		return c, invalid("max wait must not be negative, got %v", c.MaxWait)
	}
	if c.Queue == 0 {
		c.Queue = max(agent.DefaultQueue, 2*c.Size)
	}
	if c.Queue < c.Size {
		return c, invalid("queue must be at least size (%d), got %d", c.Size, c.Queue)
	}
	if c.Name == "" {
		c.Name = "buffer"
	}
	return c, nil
}

// weighed reports whether batches are cut by weight.
func (c Config[T]) weighed() bool { return c.MaxWeight > 0 }
