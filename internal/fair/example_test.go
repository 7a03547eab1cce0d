package fair_test

import (
	"fmt"
	"time"

	"github.com/evolvekit/evolve/internal/fair"
)

// Two clients, one with many items and one with few: their items start
// in turns, each client's in the order they came.
func Example() {
	q, err := fair.New[string, string](time.Millisecond)
	if err != nil {
		panic(err)
	}
	for i := range 4 {
		q.Push("big", fmt.Sprint("big-", i))
	}
	q.Push("small", "small-0")
	q.Push("small", "small-1")
	for q.Len() > 0 {
		k, v, charge, _ := q.Pop()
		fmt.Println(v)
		q.Done(k, charge, time.Millisecond) // each item's work took a millisecond
	}
	// Output:
	// big-0
	// small-0
	// big-1
	// small-1
	// big-2
	// big-3
}
