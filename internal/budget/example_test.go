package budget_test

import (
	"fmt"
	"time"

	"github.com/evolvekit/evolve/internal/budget"
)

// Three stages with full queues, whose items take 10, 20 and 30 ms of a
// worker's time: twelve workers go in proportion, 2, 4 and 6, so each
// stage gets through 200 items a second. Once the last stage's queue
// empties, its workers go to the others, but for the one it keeps.
func ExampleAllocate() {
	stages := []budget.Demand{
		{Queued: 64, Service: 10 * time.Millisecond},
		{Queued: 64, Service: 20 * time.Millisecond},
		{Queued: 64, Service: 30 * time.Millisecond},
	}
	fmt.Println(budget.Allocate(12, stages))
	stages[2].Queued = 0
	fmt.Println(budget.Allocate(12, stages))
	// Output:
	// [2 4 6]
	// [4 7 1]
}

// A Stage reads a stage's counters on a period and estimates its service
// time by Little's law: 4 workers busy for 100 ms that finish 40 items
// spend 10 ms on each.
func ExampleStage() {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var s budget.Stage
	s = s.Observe(budget.Reading{At: t0, Queued: 10, Busy: 4, Done: 100})
	s = s.Observe(budget.Reading{At: t0.Add(100 * time.Millisecond), Queued: 12, Busy: 4, Done: 140})
	fmt.Println(s.Demand())
	// Output: {12 10ms}
}
