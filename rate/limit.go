package rate

import (
	"math"
	"time"
)

// Limit is the shape of the token bucket: the rate it refills at and the
// number of tokens it holds when full. It is the payload of the
// agent.Set[Limit] message that [SetLimit] sends.
//
// The zero Limit is not valid for SetLimit: Rate and Burst are required.
// A [Shared] limit sets the zero Limit for a process that holds no share:
// its bucket lets nothing through until a share comes.
type Limit struct {
	// Rate is the refill rate in tokens (events of cost 1) per second:
	// positive and finite; fractions such as 0.5 are allowed.
	Rate float64
	// Burst is the capacity of the bucket: at least 1. It is also the largest
	// cost one item may have.
	Burst int
	// Until, when not zero, is when the limit lapses: from that instant of
	// the runtime's clock the bucket holds no token and refills none, until
	// a new Limit comes. A Shared limit's grants have one, the end of their
	// lease, so that a process cut off from the others, or stopped and
	// started again, spends nothing past it.
	Until time.Time
}

// Shared is a limit that several processes share: a rate agent given one
// in Config.Shared takes its rate and burst from what the limit grants
// its process, a lease at a time, rather than from Config.Rate and
// Config.Burst, and starts with no token. durable's Queue.Limit returns
// one, kept on the queue's NATS servers; its doc says what it promises.
type Shared interface {
	// Join connects one agent: set hands it a Limit, and reports false once
	// the agent has ended. Join returns the function that the agent calls,
	// on its own goroutine and without blocking, with how many items wait
	// for tokens and how many it has let through in all, and the one that
	// lets its share go as the agent ends.
	Join(set func(Limit) bool) (use func(waiting, passed int), leave func())
}

// usable reports whether evolve takes l: a Limit SetLimit takes, or the
// zero rate and burst of a process that holds no share.
func (l Limit) usable() bool {
	return l.check() == nil || l.Rate == 0 && l.Burst == 0
}

// lapsed reports whether l has lapsed at instant at.
func (l Limit) lapsed(at time.Time) bool {
	return !l.Until.IsZero() && !at.Before(l.Until)
}

// check returns an [ErrConfig] naming the field of l that is out of range,
// or nil.
func (l Limit) check() error {
	switch {
	case math.IsInf(l.Rate, 1):
		return configError("rate must be finite, got %v", l.Rate)
	case !(l.Rate > 0):
		return configError("rate must be a positive number, got %v", l.Rate)
	case l.Burst < 1:
		return configError("burst must be at least 1, got %d", l.Burst)
	}
	return nil
}
