package intake_test

import (
	"context"
	"fmt"

	"github.com/evolvekit/evolve/durable/internal/intake"
)

// Run calls a step, here a fetch from a made-up queue, until the step
// reports the run over; a fetch that finds nothing ready waits longer
// each time, as Waits says, and FirstWait again once items came.
func Example() {
	ready := []int{3, 0, 0, 0, 2, 0} // the items each fetch finds
	var waits intake.Waits
	fetches := 0
	err := intake.Run(context.Background(), func(context.Context) (bool, error) {
		if fetches == len(ready) {
			return true, nil // the queue is drained: the run is over
		}
		n := ready[fetches]
		fetches++
		if n > 0 {
			waits.Came()
			fmt.Printf("fetch %d: %d items\n", fetches, n)
			return false, nil
		}
		fmt.Printf("fetch %d: waited %v, nothing came\n", fetches, waits.Next())
		return false, nil
	})
	fmt.Println("run over:", err)
	// Output:
	// fetch 1: 3 items
	// fetch 2: waited 5ms, nothing came
	// fetch 3: waited 10ms, nothing came
	// fetch 4: waited 20ms, nothing came
	// fetch 5: 2 items
	// fetch 6: waited 5ms, nothing came
	// run over: <nil>
}
