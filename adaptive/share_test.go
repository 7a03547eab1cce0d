package adaptive_test

import (
	"context"
	"testing"
	"time"

	"github.com/evolvekit/evolve/adaptive"
	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/internal/budget"
	"github.com/evolvekit/evolve/internal/core"
	"github.com/evolvekit/evolve/parallel"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAStageSharesWorkersAsTheParallelAgentItEmbeds(t *testing.T) {
	s, err := adaptive.Stage(adaptive.Config{}, func(_ context.Context, v int) (int, error) { return v, nil })
	require.NoError(t, err)
	share := core.Unwrap(s).Plan().Agents[0].Share
	require.NotNil(t, share, "an adaptive stage shares workers")

	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	p := parallel.Status{Load: agent.Load{Queued: 3, InFlight: 8, Done: 20}, Limit: 4, Batches: 2}
	st := adaptive.Status{Status: p, Min: 1, Max: 9}
	assert.Equal(t, budget.Reading{At: at, Queued: 3, Busy: 2, Done: 20, Limit: 4}, share.Read(at, st))
	assert.Equal(t, agent.Set[adaptive.Limit]{At: at, Value: 3}, share.Limit(at, 3))
	assert.Equal(t, budget.Reading{At: at}, share.Read(at, p), "a status of another agent reads as nothing")
}
