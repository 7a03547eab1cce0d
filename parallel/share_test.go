package parallel_test

import (
	"context"
	"testing"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/internal/budget"
	"github.com/evolvekit/evolve/internal/core"
	"github.com/evolvekit/evolve/parallel"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAStageSharesWorkersByItsBatchesAndLimit(t *testing.T) {
	s, err := parallel.Stage(parallel.Config{Limit: 1}, func(_ context.Context, v int) (int, error) { return v, nil })
	require.NoError(t, err)
	share := core.Unwrap(s).Plan().Agents[0].Share
	require.NotNil(t, share, "a parallel stage shares workers")

	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	st := parallel.Status{Load: agent.Load{Queued: 3, InFlight: 8, Done: 20}, Limit: 4, Batches: 2}
	assert.Equal(t, budget.Reading{At: at, Queued: 3, Busy: 2, Done: 20, Limit: 4}, share.Read(at, st), "busy counts batches, not items")
	assert.Equal(t, agent.Set[parallel.Limit]{At: at, Value: 5}, share.Limit(at, 5))
}
