package budget_test

import (
	"testing"

	"github.com/evolvekit/evolve/adaptive"
	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/internal/budget"
	"github.com/evolvekit/evolve/parallel"
	"github.com/stretchr/testify/assert"
)

func TestReadKnowsParallelAndAdaptiveStatuses(t *testing.T) {
	p := parallel.Status{Load: agent.Load{Queued: 3, InFlight: 8, Done: 20}, Limit: 4, Batches: 2}
	r, k := budget.Read(t0, p)
	assert.Equal(t, budget.Parallel, k)
	assert.Equal(t, budget.Reading{At: t0, Queued: 3, Busy: 2, Done: 20, Limit: 4}, r, "busy counts batches, not items")

	r, k = budget.Read(t0, adaptive.Status{Status: p, Min: 1, Max: 9})
	assert.Equal(t, budget.Adaptive, k)
	assert.Equal(t, budget.Reading{At: t0, Queued: 3, Busy: 2, Done: 20, Limit: 4}, r)

	for _, other := range []any{nil, agent.Load{Queued: 3}, &p} {
		r, k = budget.Read(t0, other)
		assert.Equal(t, budget.None, k, "%T", other)
		assert.Zero(t, r)
	}
}

func TestMessageSetsTheLimitOfEachKind(t *testing.T) {
	assert.Equal(t, agent.Set[parallel.Limit]{At: t0, Value: 5}, budget.Message(budget.Parallel, t0, 5))
	assert.Equal(t, agent.Set[adaptive.Limit]{At: t0, Value: 3}, budget.Message(budget.Adaptive, t0, 3))
	assert.Nil(t, budget.Message(budget.None, t0, 3))
}
