package timer_test

import (
	"fmt"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/remote/internal/timer"
)

// A book keeps one timer pending for the earliest lease deadline that
// still counts, at made-up instants: the timer is armed for it, its Tick
// pops the deadline due, and the timer is armed again for the next one
// that counts, or disarmed once none does: a lease given back before its
// deadline no longer counts.
func Example() {
	const tag = 1
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var (
		deadlines timer.Deadlines
		pending   timer.Pending
	)
	deadlines.Add(1, 1, t0.Add(30*time.Second))
	deadlines.Add(2, 1, t0.Add(40*time.Second))
	deadlines.Add(3, 1, t0.Add(50*time.Second))
	returned := map[uint64]bool{2: true} // item 2's lease was given back
	live := func(seq uint64, _ int) bool { return !returned[seq] }

	// arm asks for the timer of the next deadline at instant at, and
	// shows the effects that asks for.
	arm := func(at time.Time) {
		next, ok := deadlines.Next(live)
		for _, fx := range pending.Set(nil, tag, next.Due, ok, at) {
			switch fx := fx.(type) {
			case agent.Timer:
				fmt.Printf("arm the timer for %v\n", fx.Delay)
			case agent.Disarm:
				fmt.Println("disarm the timer")
			}
		}
	}

	arm(t0)
	arm(t0.Add(time.Second)) // pending for that instant already: nothing to ask

	at := t0.Add(30 * time.Second) // the timer's Tick
	fmt.Println("tick fired:", pending.Fired(at))
	for e, ok := deadlines.Pop(at, live); ok; e, ok = deadlines.Pop(at, live) {
		fmt.Printf("item %d's lease ran out, attempt %d\n", e.Seq, e.Attempt)
	}
	arm(at)

	returned[3] = true // item 3's lease is given back too: no deadline counts
	arm(t0.Add(35 * time.Second))
	// Output:
	// arm the timer for 30s
	// tick fired: true
	// item 1's lease ran out, attempt 1
	// arm the timer for 20s
	// disarm the timer
}
