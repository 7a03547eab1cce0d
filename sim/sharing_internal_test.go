package sim

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

const ms = time.Millisecond

// wakeAt returns the instant w wakes up at, failing if it has nothing in
// flight.
func wakeAt(t *testing.T, w *sharedWork) time.Duration {
	t.Helper()
	at, ok := w.next()
	assert.True(t, ok, "work in flight")
	return at
}

func TestSharingStretchesTheWorkInFlightWhenMoreStarts(t *testing.T) {
	// Knee 1 and no contention: n in flight each go n times slower.
	w := sharedWork{capa: Curve{Base: 10 * ms, Knee: 1}}
	r := rand.New(rand.NewPCG(1, 2))
	w.start(r, 0, 1)
	assert.Equal(t, 10*ms, wakeAt(t, &w), "alone, it would take its 10ms")
	w.start(r, 5*ms, 2)
	assert.Len(t, w.jobs, 2)
	// 1 has 5ms of work left, done at half speed: it finishes at 15ms, not
	// at 10ms as a service time fixed at its start would have it.
	assert.Equal(t, 15*ms, wakeAt(t, &w))
	assert.Empty(t, w.advance(15*ms-1))
	assert.Equal(t, []uint64{1}, w.advance(15*ms))
	// 2 did 5ms of its work at half speed and does the rest alone; a
	// service time fixed at its start (two in flight) would end it at 25ms.
	assert.Equal(t, 20*ms, wakeAt(t, &w))
	assert.Equal(t, []uint64{2}, w.advance(time.Second))
	_, ok := w.next()
	assert.False(t, ok)
}

func TestSharingAtOneConcurrencyTakesTheCapacitysServiceTime(t *testing.T) {
	c := Curve{Base: 10 * ms, Knee: 2, Contention: 0.5}
	w := sharedWork{capa: c}
	r := rand.New(rand.NewPCG(1, 2))
	for id := range uint64(4) {
		w.start(r, 0, id)
	}
	want := c.Service(r, 0, 4)
	assert.Equal(t, 30*ms, want, "twice the knee: 2 × 1.5 × Base")
	assert.Equal(t, want, wakeAt(t, &w))
	assert.Equal(t, []uint64{0, 1, 2, 3}, w.advance(want), "all at once, in the order they started")
}

func TestSharingAppliesACapacityStepToTheWorkInFlight(t *testing.T) {
	w := sharedWork{capa: Step{At: 5 * ms, Before: Curve{Base: 10 * ms, Knee: 2}, After: Curve{Base: 10 * ms, Knee: 1}}}
	r := rand.New(rand.NewPCG(1, 2))
	w.start(r, 0, 7)
	w.start(r, 0, 8)
	assert.Equal(t, 5*ms, wakeAt(t, &w), "it wakes up at the step")
	assert.Empty(t, w.advance(5*ms))
	// 5ms of work left each, now at half speed.
	assert.Equal(t, 15*ms, wakeAt(t, &w))
	assert.Equal(t, []uint64{7, 8}, w.advance(15*ms))
}

func TestSharingReportsWorkThatFinishedBeforeAStart(t *testing.T) {
	w := sharedWork{capa: Curve{Base: 10 * ms, Knee: 4}}
	r := rand.New(rand.NewPCG(1, 2))
	w.start(r, 0, 1)
	w.start(r, 30*ms, 2)
	assert.Equal(t, []uint64{1}, w.advance(30*ms))
	assert.Equal(t, 40*ms, wakeAt(t, &w))
}
