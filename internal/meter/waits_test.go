package meter_test

import (
	"context"
	"testing"
	"time"

	"github.com/evolvekit/evolve/internal/meter"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Items leave in the order they came: those that left are charged the wait
// of their own arrival, across arrivals, and items that came at one instant
// are one arrival.
func TestItemsLeaveWithTheWaitOfTheirArrival(t *testing.T) {
	hist := meter.NewHistograms()
	m, err := meter.New(nil, hist)
	require.NoError(t, err)
	defer m.Close()
	g := m.Agent("q")
	t0 := time.Unix(100, 0)
	var w meter.Waits
	w.Arrived(t0, 2)
	w.Arrived(t0, 1) // the same instant: one arrival of 3
	w.Arrived(t0.Add(time.Millisecond), 4)
	w.Left(g, 5, t0.Add(3*time.Millisecond)) // 3 waited 3 ms, 2 waited 2 ms
	w.Left(g, 9, t0.Add(4*time.Millisecond)) // the 2 left waited 3 ms; no more are held

	sm, err := hist.Produce(context.Background())
	require.NoError(t, err)
	wait := points(t, sm, "evolve.queue.wait")["q"]
	assert.Equal(t, uint64(7), wait.Count, "each item once")
	assert.InDelta(t, (3*3+2*2+2*3)*1e-3, wait.Sum, 1e-12)

	w.Left(g, 1, t0.Add(5*time.Millisecond)) // nothing held: nothing recorded
	sm, err = hist.Produce(context.Background())
	require.NoError(t, err)
	assert.Equal(t, uint64(7), points(t, sm, "evolve.queue.wait")["q"].Count)
}
