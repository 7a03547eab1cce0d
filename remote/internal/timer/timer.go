// Package timer keeps what a remote stage's book knows of its clocks: the
// timers it asked its actor for ([Pending]: armed with an agent.Timer,
// disarmed with an agent.Disarm, fired as an agent.Tick of its tag), and
// the deadlines of the leases it gave ([Deadlines]). Time comes in the
// messages: nothing here reads a clock.
package timer

import (
	"time"

	"github.com/evolvekit/evolve/agent"
)

// Pending is one timer tag as the book asked for it: whether a timer is
// pending, and the instant it is due. The zero Pending has none pending.
type Pending struct {
	on  bool
	due time.Time
}

// On reports whether a timer is pending.
func (t *Pending) On() bool { return t.on }

// Due returns the instant the pending timer is due.
func (t *Pending) Due() time.Time { return t.due }

// Fired notes that the timer has fired, if one is pending and due by at,
// and reports whether it did: a Tick of a timer due later is stale.
func (t *Pending) Fired(at time.Time) bool {
	if !t.on || t.due.After(at) {
		return false
	}
	t.on = false
	return true
}

// Set keeps the timer of tag pending for due, or none if !ok, at instant
// at: it appends to fx the Timer that arms it, or the Disarm that stops
// the one pending, unless one is pending for due already.
func (t *Pending) Set(fx []agent.Effect, tag uint64, due time.Time, ok bool, at time.Time) []agent.Effect {
	switch {
	case !ok && t.on:
		t.on = false
		return append(fx, agent.Disarm{Tag: tag})
	case !ok || t.on && t.due.Equal(due):
		return fx
	}
	return t.Arm(fx, tag, due, at)
}

// Arm arms the timer of tag for due, at instant at, whether or not one
// is pending, and appends the Timer to fx.
func (t *Pending) Arm(fx []agent.Effect, tag uint64, due time.Time, at time.Time) []agent.Effect {
	t.on, t.due = true, due
	return append(fx, agent.Timer{Tag: tag, Delay: max(due.Sub(at), 0)})
}
