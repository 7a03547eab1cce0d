package budget_test

import (
	"testing"
	"time"

	"github.com/evolvekit/evolve/internal/budget"
	"github.com/stretchr/testify/assert"
)

const ms = time.Millisecond

func TestAllocate(t *testing.T) {
	for _, c := range []struct {
		name   string
		n      int
		stages []budget.Demand
		want   []int
	}{
		{"no demand splits evenly", 12, make([]budget.Demand, 3), []int{4, 4, 4}},
		{"the remainder goes to the earlier stages", 8, make([]budget.Demand, 3), []int{3, 3, 2}},
		{"one worker each", 3, []budget.Demand{{Queued: 9, Service: ms}, {}, {Queued: 1}}, []int{1, 1, 1}},
		{"no stages", 4, nil, []int{}},
		{"workers in proportion to service time under equal queues", 12,
			[]budget.Demand{{64, 10 * ms}, {64, 20 * ms}, {64, 30 * ms}}, []int{2, 4, 6}},
		{"workers in proportion to queue under equal service times", 12,
			[]budget.Demand{{10, ms}, {20, ms}, {30, ms}}, []int{2, 4, 6}},
		{"an unknown service time is the mean of those known", 12,
			[]budget.Demand{{64, 10 * ms}, {64, 0}, {64, 30 * ms}}, []int{2, 4, 6}},
		{"with no service time known, queues alone", 6,
			[]budget.Demand{{Queued: 10}, {}, {Queued: 30}}, []int{2, 1, 3}},
		{"an empty queue keeps its one worker", 10,
			[]budget.Demand{{0, 50 * ms}, {100, ms}, {0, 50 * ms}}, []int{1, 8, 1}},
		{"a negative queue counts as empty", 5,
			[]budget.Demand{{-4, ms}, {4, ms}}, []int{1, 4}},
		{"equal quotients go to the stage with fewer workers", 5,
			[]budget.Demand{{2, ms}, {4, ms}}, []int{2, 3}},
		// Wikipedia, "D'Hondt method": 100,000, 80,000, 30,000 and 20,000
		// votes share 8 seats as 4, 3, 1 and 0; here they share the 8
		// workers left once each stage has its own.
		{"the workers beyond each stage's own go by D'Hondt", 12,
			[]budget.Demand{{100, ms}, {80, ms}, {30, ms}, {20, ms}}, []int{5, 4, 2, 1}},
		// One slow stage between two quick ones: the most throughput that
		// 12 workers give is 1/9/2 (250, 180 and 333 items a second).
		{"the slowest stage is the one that gets the next worker", 12,
			[]budget.Demand{{64, 4 * ms}, {64, 50 * ms}, {64, 6 * ms}}, []int{1, 9, 2}},
	} {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, budget.Allocate(c.n, c.stages))
		})
	}
}

func TestAllocatePanicsWithFewerWorkersThanStages(t *testing.T) {
	assert.PanicsWithValue(t, "budget: 2 workers cannot give each of 3 stages one", func() {
		budget.Allocate(2, make([]budget.Demand, 3))
	})
}

func TestAllocateLeavesItsArgumentUntouched(t *testing.T) {
	stages := []budget.Demand{{3, 0}, {5, ms}}
	budget.Allocate(9, stages)
	assert.Equal(t, []budget.Demand{{3, 0}, {5, ms}}, stages)
}
