package want

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// steady feeds g an item every gap and a task of service s with each, for
// span, and returns the instant it ends at.
func steady(g *Gauge, gap, s, span time.Duration) time.Time {
	at := t0
	for ; at.Sub(t0) < span; at = at.Add(gap) {
		g.Arrive(at)
		g.Serve(s, at)
	}
	return at
}

func TestLittlesLawOverTheMeanSlots(t *testing.T) {
	g := &Gauge{Slots: 40}
	at := steady(g, 5*time.Millisecond, 50*time.Millisecond, time.Minute) // λ 200/s, S 50 ms: 10 slots busy
	assert.InDelta(t, 200, g.Rate(), 1)
	assert.Equal(t, 50*time.Millisecond, g.Service())
	assert.True(t, g.Update(Line{Registered: 10, Drain: 30 * time.Second}, at))
	assert.Equal(t, 3, g.Want, "ceil(10 busy / 4 a worker)")
	g = &Gauge{Slots: 8}
	at = steady(g, 5*time.Millisecond, 50*time.Millisecond, time.Minute)
	g.Update(Line{Registered: 4, Drain: 30 * time.Second}, at)
	assert.Equal(t, 6, g.Want, "10 busy of 8 slots, saturated: 4 workers and half as many again, over ceil(10 / 2)")
}

func TestTheDrainTermCountsTheQueue(t *testing.T) {
	g := &Gauge{Slots: 4}
	g.Serve(time.Second, t0)
	g.Update(Line{Registered: 1, Queued: 120, Drain: 30 * time.Second}, t0)
	assert.Equal(t, 1, g.Want, "120 items of 1 s within 30 s on 4 slots: ceil(1 - slack)")
	g.Update(Line{Registered: 1, Queued: 1200, Drain: 30 * time.Second}, t0)
	assert.Equal(t, 10, g.Want)
}

func TestAWantThatRoseHoldsForAWindow(t *testing.T) {
	g := &Gauge{Slots: 4}
	g.Serve(time.Second, t0)
	g.Update(Line{Registered: 1, Queued: 1200, Drain: 30 * time.Second}, t0)
	assert.Equal(t, 10, g.Want)
	assert.False(t, g.Update(Line{Registered: 1, Queued: 1, Drain: 30 * time.Second}, t0.Add(Window-time.Nanosecond)), "held")
	assert.True(t, g.Update(Line{Registered: 1, Queued: 1, Drain: 30 * time.Second}, t0.Add(Window)))
	assert.Equal(t, 1, g.Want, "busy: at least one")
}

func TestAnIdleLineWantsNone(t *testing.T) {
	g := &Gauge{Slots: 4}
	g.Arrive(t0)
	assert.True(t, g.Age(t0, false), "an item came: λ not 0")
	g.Update(Line{Registered: 1, Queued: 1, Drain: time.Second}, t0)
	assert.Equal(t, 1, g.Want, "S unknown: the floor")
	assert.False(t, g.Age(t0.Add(Window), false), "nothing came for a window")
	g.Update(Line{Registered: 1, Drain: time.Second}, t0.Add(Window))
	assert.Zero(t, g.Want, "empty and idle")
	g.Arrive(t0.Add(2 * Window))
	assert.False(t, g.Age(t0.Add(2*Window), true), "closed")
	g.Update(Line{Registered: 1, Closed: true, Drain: time.Second}, t0.Add(2*Window))
	assert.Zero(t, g.Want, "closed and empty")
}
