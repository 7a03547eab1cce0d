package budget_test

import (
	"testing"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/internal/budget"
	"github.com/stretchr/testify/assert"
)

func TestPacedCountsWhatWaitsForTheStageInThePacer(t *testing.T) {
	r := budget.Reading{Queued: 2, Busy: 3, Done: 40, Limit: 4}
	for _, c := range []struct {
		name   string
		pacer  agent.Load
		bound  int
		queued int
	}{
		{"no room open: all the pacer holds waits", agent.Load{Queued: 20}, 64, 22},
		{"room open: only what is beyond it waits", agent.Load{Queued: 20, Demand: 5}, 64, 17},
		{"room for all the pacer holds: none waits", agent.Load{Queued: 5, Demand: 8}, 64, 2},
		{"an empty pacer", agent.Load{}, 64, 2},
		{"at most the stage's own bound", agent.Load{Queued: 100}, 64, 64},
		{"no bound", agent.Load{Queued: 100}, 0, 102},
		{"a broken stage's unbounded demand", agent.Load{Queued: 100, Demand: agent.Unbounded}, 64, 2},
	} {
		got := budget.Paced(r, c.pacer, c.bound)
		want := r
		want.Queued = c.queued
		assert.Equal(t, want, got, c.name)
	}
}

func TestPacedNeverShrinksTheStagesOwnQueue(t *testing.T) {
	r := budget.Reading{Queued: 70}
	assert.Equal(t, 70, budget.Paced(r, agent.Load{Queued: 10}, 64).Queued)
}
