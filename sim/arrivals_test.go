package sim_test

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/evolvekit/evolve/sim"
	"github.com/stretchr/testify/assert"
)

// count asks a for arrivals from 0 until end and returns how many came.
func count(a sim.Arrivals, end time.Duration) (n int, calls int) {
	r := rand.New(rand.NewPCG(1, 2))
	for at := time.Duration(0); at < end; calls++ {
		k, wait := a.Next(r, at)
		n += k
		at += wait
	}
	return n, calls
}

func TestSteadyArrivalsComeAtTheirRate(t *testing.T) {
	n, _ := count(sim.Steady{Rate: 100}, 10*time.Second)
	assert.Equal(t, 1000, n)
	n, _ = count(sim.Steady{Rate: 100, Poisson: true}, 100*time.Second)
	assert.InEpsilon(t, 10000, n, 0.03)
}

func TestBatchesAverageHalfTheirMax(t *testing.T) {
	n, calls := count(sim.Batches{Every: 10 * time.Millisecond, Max: 20}, 100*time.Second)
	assert.Equal(t, 10000, calls)
	assert.InEpsilon(t, 100000, n, 0.02)
}

func TestSpellsAreIdleBetweenBusySpells(t *testing.T) {
	s := sim.Spells{Of: sim.Steady{Rate: 1000}, On: 600 * time.Millisecond, Off: 400 * time.Millisecond}
	n, _ := count(s, 10*time.Second)
	assert.Equal(t, 6000, n)
	r := rand.New(rand.NewPCG(1, 2))
	k, wait := s.Next(r, 700*time.Millisecond)
	assert.Zero(t, k)
	assert.Equal(t, 300*time.Millisecond, wait, "idle until the next busy spell")
}

func TestASwitchChangesTheArrivalsAtItsInstant(t *testing.T) {
	s := sim.Switch{At: time.Second, Before: sim.Bursts{Every: 300 * time.Millisecond, Size: 5}, After: sim.Steady{Rate: 10}}
	n, _ := count(s, 2*time.Second)
	assert.Equal(t, 4*5+10, n, "bursts at 0, 0.3, 0.6 and 0.9 s, then ten a second")
	r := rand.New(rand.NewPCG(1, 2))
	_, wait := s.Next(r, 900*time.Millisecond)
	assert.Equal(t, 100*time.Millisecond, wait, "never waits past the switch")
}

func TestFloodArrivesOnceAndForAll(t *testing.T) {
	n, wait := sim.Flood{}.Next(nil, 0)
	assert.Greater(t, n, 1<<30)
	assert.Equal(t, sim.Never, wait)
}
