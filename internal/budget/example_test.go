package budget_test

import (
	"fmt"
	"time"

	"github.com/evolvekit/evolve/agent"
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

// An Estimate reads a stage's counters on a period and estimates its
// service time by Little's law: 4 workers busy for 100 ms that finish 40
// items spend 10 ms on each.
func ExampleEstimate() {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var e budget.Estimate
	e = e.Observe(budget.Reading{At: t0, Queued: 10, Busy: 4, Done: 100})
	e = e.Observe(budget.Reading{At: t0.Add(100 * time.Millisecond), Queued: 12, Busy: 4, Done: 140})
	fmt.Println(e.Demand())
	// Output: {12 10ms}
}

// A stage whose status is a pool and whose limit a size sets declares
// how it shares workers; a driver reads its status and sets its limit
// through the Share alone.
func ExampleShares() {
	type pool struct{ waiting, running, finished, size int }
	type size int
	share := budget.Shares(func(p pool) budget.Reading {
		return budget.Reading{Queued: p.waiting, Busy: p.running, Done: p.finished, Limit: p.size}
	}, func(n int) size { return size(n) })

	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var status any = pool{waiting: 7, running: 2, finished: 30, size: 2}
	r := share.Read(t0, status)
	fmt.Println(r.Queued, r.Busy, r.Done, r.Limit)
	fmt.Printf("%+v\n", share.Limit(t0, 5))
	// Output:
	// 7 2 30 2
	// {At:2026-01-01 00:00:00 +0000 UTC Value:5}
}

// A stage behind a rate stage starts what it takes at once, so its own
// queue is empty; the 40 items the rate stage holds beyond the 2 the stage
// has room for wait for it, and count as its queue, up to its own queue's
// bound: all 40 with a bound of 64, 32 with a bound of 32.
func ExamplePaced() {
	stage := budget.Reading{Queued: 0, Busy: 4, Limit: 4}
	pacer := agent.Load{Queued: 42, Demand: 2}
	fmt.Println(budget.Paced(stage, pacer, 64).Queued, budget.Paced(stage, pacer, 32).Queued)
	// Output: 40 32
}
