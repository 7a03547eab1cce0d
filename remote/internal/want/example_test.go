package want_test

import (
	"fmt"
	"time"

	"github.com/evolvekit/evolve/remote/internal/want"
)

// A line that gets 100 items a second, each holding a slot for 50 ms, on
// workers of one slot: by Little's law it wants about five workers.
func Example() {
	var g want.Gauge
	g.Slots = 1
	at := time.Unix(0, 0)
	for range 3000 { // 30 s of arrivals, 10 ms apart
		at = at.Add(10 * time.Millisecond)
		g.Arrive(at)
		g.Serve(50*time.Millisecond, at)
	}
	g.Age(at, false)
	g.Update(want.Line{Registered: 1, Drain: 30 * time.Second}, at)
	fmt.Printf("λ %.0f a second, S %v: wants %d workers\n", g.Rate(), g.Service(), g.Want)
	// Output: λ 100 a second, S 50ms: wants 5 workers
}
