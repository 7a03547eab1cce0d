package budget

import (
	"time"

	"github.com/evolvekit/evolve/agent"
)

// DefaultPeriod is how often the drivers of a budget read the stages'
// statuses and share the workers again, unless told otherwise.
const DefaultPeriod = 50 * time.Millisecond

// Reading is what a stage's status tells a budget at one instant.
type Reading struct {
	At time.Time
	// Queued counts the items waiting to start, Busy the workers at work
	// (the batches in flight), Done the items whose work has ended so far,
	// and Limit is the stage's limit.
	Queued, Busy, Done, Limit int
}

// Share is how a stage shares a budget's workers, as the stage declares
// it: a driver knows no particular stage, and asks its Share instead.
type Share struct {
	// Read returns what status, the stage's status (the value of its
	// agent.Reply) taken at instant at, tells a budget.
	Read func(at time.Time, status any) Reading
	// Limit returns the message, stamped at, that sets the stage's limit
	// to n.
	Limit func(at time.Time, n int) agent.Msg
}

// Shares returns the Share of a stage whose status is a V and whose limit
// an agent.Set[C] sets: read says what a status tells a budget (its At is
// the driver's), limit makes the C that sets the limit to n. A status that
// is no V reads as a Reading of nothing.
func Shares[V, C any](read func(V) Reading, limit func(n int) C) *Share {
	return &Share{
		Read: func(at time.Time, status any) Reading {
			v, ok := status.(V)
			if !ok {
				return Reading{At: at}
			}
			r := read(v)
			r.At = at
			return r
		},
		Limit: func(at time.Time, n int) agent.Msg {
			return agent.Set[C]{At: at, Value: limit(n)}
		},
	}
}
