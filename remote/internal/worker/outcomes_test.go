package worker

import (
	"context"
	"testing"
	"time"

	"github.com/evolvekit/evolve/remote/internal/wire"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A worker tells the master what each task's work took, unless the master
// said, as it welcomed the worker, that it has no use for it: then the
// slots do not read the clock, and the messages carry no took.
func TestOutcomesCarryWhatTheWorkTookUnlessUntimed(t *testing.T) {
	w := &worker[int, int]{ctx: context.Background(), limit: wire.DefaultMaxMessage, session: NewSession(SessionConfig{Slots: 1}, 1)}
	send := func() *wire.Outcomes {
		w.held.Put(7, 1)
		msgs := w.outcomes([]outcome{{item: 7, attempt: 1, size: 2, took: 3 * time.Millisecond}}, []byte("14"))
		require.Len(t, msgs, 1)
		return msgs[0]
	}
	assert.False(t, w.now().IsZero())
	assert.Equal(t, []int64{int64(3 * time.Millisecond)}, send().Took)

	w.untimed.Store(true)
	assert.True(t, w.now().IsZero(), "no clock read")
	assert.Zero(t, since(w.now()))
	m := send()
	assert.Empty(t, m.Took)
	assert.Equal(t, []uint64{7}, m.Items)
	assert.Equal(t, []byte("14"), m.Values)
}
