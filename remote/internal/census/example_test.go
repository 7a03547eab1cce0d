package census_test

import (
	"fmt"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/remote/internal/census"
)

func Example() {
	st := census.Snapshot{
		Load:     agent.Load{Queued: 3, InFlight: 2},
		Workers:  []census.Worker{{ID: 1, Addr: "w1", Slots: 2, InFlight: 2}},
		Tags:     map[string]int{"": 3},
		Accepted: 5,
	}
	free := 0
	for _, w := range st.Workers {
		free += w.Free
	}
	fmt.Printf("%d accepted: %d queued, %d in flight, %d slots free\n", st.Accepted, st.Queued, st.InFlight, free)
	// Output: 5 accepted: 3 queued, 2 in flight, 0 slots free
}
