package compose

import (
	"context"
	"fmt"

	"github.com/rs/zerolog"
)

// Status is a snapshot of a chain: each stage's own status, first to last,
// and what the chain's overflow policy dropped.
type Status struct {
	Name     string
	Overflow Overflow
	// Bound is the most items the stages' input queues hold in all.
	Bound int
	// Dropped counts the items DropNewest dropped. (DropOldest's drops are
	// in the status of its "overflow" stage.)
	Dropped int
	Stages  []StageStatus
}

// StageStatus is one stage's status: Status is the snapshot of its agent
// package's own type (parallel.Status, rate.Status, buffer.Status, ...).
type StageStatus struct {
	Name   string
	Status any
}

// MarshalZerologObject writes st as the fields of one zerolog object.
func (st Status) MarshalZerologObject(e *zerolog.Event) {
	e.Str("name", st.Name).Str("overflow", st.Overflow.String()).Int("bound", st.Bound).Int("dropped", st.Dropped)
}

// Status asks every stage for its status, first to last, one round trip
// each. It returns an error if a stage has stopped or failed, or ctx ends.
func (c *Chain[I]) Status(ctx context.Context) (Status, error) {
	st := Status{Name: c.name, Overflow: c.overflow, Bound: c.bound, Dropped: int(c.dropped.Load())}
	for _, m := range c.members {
		v, err := m.Status(ctx)
		if err != nil {
			return st, fmt.Errorf("compose: status of %s: %w", m.Name(), err)
		}
		st.Stages = append(st.Stages, StageStatus{Name: m.Name(), Status: v})
	}
	return st, nil
}

// LogStatus writes one structured zerolog event per stage, as each agent's
// LogStatus does, and one for the chain. It does not wait for the stages'
// events, which each agent writes on its own goroutine, so they may come in
// any order; the chain's event is written on the caller's goroutine, before
// LogStatus returns, so the logger's writer must not wait on the caller.
func (c *Chain[I]) LogStatus() {
	for _, m := range c.members {
		m.LogStatus()
	}
	st := Status{Name: c.name, Overflow: c.overflow, Bound: c.bound, Dropped: int(c.dropped.Load())}
	c.log.Info().Str("chain", c.name).Object("status", st).Msg("status")
}
