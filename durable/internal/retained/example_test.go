package retained_test

import (
	"fmt"

	"github.com/evolvekit/evolve/durable/internal/retained"
)

// A new queue without fair keys keeps its items in a stream of Limits
// retention; one with fair keys is a work queue.
func ExampleRetains() {
	for _, keyed := range []bool{false, true} {
		r, _ := retained.Retains(nil, keyed)
		fmt.Println(keyed, r, retained.Retention(r))
	}
	// Output:
	// false true Limits
	// true false WorkQueue
}
