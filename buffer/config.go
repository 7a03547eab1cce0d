package buffer

import (
	"time"

	"github.com/evolvekit/evolve/agent"
)

// Config sets the shape of the batches and the bound of the input queue.
//
// The zero Config is not valid: Size is required. MaxWait 0 means no linger
// time, Queue 0 picks a default bound, and an empty Name means "buffer".
type Config struct {
	// Size is the number of items in a full batch. Required, at least 1.
	Size int
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
}

// withDefaults checks c and fills in the default Queue and Name. Its errors
// are [ErrConfig] and name the field at fault.
func (c Config) withDefaults() (Config, error) {
	if c.Size < 1 {
		return c, invalid("size must be at least 1, got %d", c.Size)
	}
	if c.MaxWait < 0 {
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
