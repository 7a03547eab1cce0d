package fairline_test

import (
	"fmt"
	"time"

	"github.com/evolvekit/evolve/remote/internal/fairline"
)

// A big client's items queued before a small client's: the line hands
// them out in turns, and is told what each one's work took as it ends.
func Example() {
	line, err := fairline.New(time.Millisecond, map[string]int{"small": 2})
	if err != nil {
		fmt.Println(err)
		return
	}
	for seq := range uint64(6) {
		line.Push("big", seq)
	}
	line.Push("small", 6)
	line.Push("small", 7)
	var order []uint64
	for line.Len() > 0 {
		seq, _ := line.Pop()
		order = append(order, seq)
		line.Work(seq, time.Millisecond)
		line.End(seq)
	}
	fmt.Println(order)
	// Output: [0 6 7 1 2 3 4 5]
}
