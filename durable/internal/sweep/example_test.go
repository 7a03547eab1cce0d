package sweep_test

import (
	"fmt"
	"time"

	"github.com/evolvekit/evolve/durable/internal/sweep"
)

// A queue with a window of a minute read its acknowledgement floor at 100
// a minute and a half ago, and at 250 just now: a purge may reach 100.
func ExampleFloors() {
	now := time.Now()
	var f sweep.Floors
	f.Add(now.Add(-90*time.Second), 100)
	f.Add(now, 250)
	fmt.Println(f.Before(now.Add(-time.Minute)))
	// Output: 100
}
