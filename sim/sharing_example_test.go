package sim_test

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/evolvekit/evolve/sim"
)

// Sharing serves work by processor sharing. Here, past a knee of 1, two
// pieces in flight each go at half speed: the first piece, alone for 5ms,
// slows down when the second starts, and the second speeds up when the
// first is done.
func ExampleSharing() {
	s := sim.Sharing{Capacity: sim.Curve{Base: 10 * time.Millisecond, Knee: 1}}
	r := rand.New(rand.NewPCG(1, 2))
	s.Start(r, 0, 1)
	s.Start(r, 5*time.Millisecond, 2)
	for s.Len() > 0 {
		at, _ := s.Next()
		fmt.Println(at, s.Advance(at))
	}
	// Output:
	// 15ms [1]
	// 20ms [2]
}
