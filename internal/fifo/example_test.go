package fifo_test

import (
	"fmt"

	"github.com/evolvekit/evolve/internal/fifo"
)

// A Queue is a value: popping from it leaves the Queue popped from as it was.
func Example() {
	var q fifo.Queue[string]
	q = q.Push("a").Push("b")
	first, rest := q.Pop()
	fmt.Println(first, rest.Len(), q.Len())
	// Output: a 1 2
}
