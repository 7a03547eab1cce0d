package budget_test

import (
	"testing"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/internal/budget"
	"github.com/stretchr/testify/assert"
)

// status and limit are a stage's own status and setting.
type (
	status struct{ queued, busy, done, limit int }
	limit  int
)

// shares is the Share of a stage whose status is a status.
var shares = budget.Shares(func(s status) budget.Reading {
	return budget.Reading{Queued: s.queued, Busy: s.busy, Done: s.done, Limit: s.limit}
}, func(n int) limit { return limit(n) })

func TestSharesReadsTheStagesStatusAtTheDriversInstant(t *testing.T) {
	r := shares.Read(at(ms), status{queued: 3, busy: 2, done: 20, limit: 4})
	assert.Equal(t, budget.Reading{At: at(ms), Queued: 3, Busy: 2, Done: 20, Limit: 4}, r)

	stamped := budget.Shares(func(s status) budget.Reading { return budget.Reading{At: t0, Queued: s.queued} },
		func(n int) limit { return limit(n) })
	assert.Equal(t, budget.Reading{At: at(ms), Queued: 3}, stamped.Read(at(ms), status{queued: 3}), "At is the driver's")
}

func TestSharesReadsAnotherStatusAsNothing(t *testing.T) {
	for _, other := range []any{nil, agent.Load{Queued: 3}, &status{queued: 3}} {
		assert.Equal(t, budget.Reading{At: t0}, shares.Read(t0, other), "%T", other)
	}
}

func TestSharesSetsTheLimitWithTheStagesOwnSetting(t *testing.T) {
	assert.Equal(t, agent.Set[limit]{At: t0, Value: 5}, shares.Limit(t0, 5))
}
