package agenda_test

import (
	"fmt"
	"time"

	"github.com/evolvekit/evolve/internal/agenda"
)

// Events come out in the order of their instants, and those of one
// instant in the order they were added. The user counts the events to
// come, as package sim does.
func Example() {
	var a agenda.Agenda[string]
	a.Add(2*time.Millisecond, 0, "tick")
	a.Add(0, 0, "pull")
	a.Add(0, 0, "input")
	for range 3 {
		at, e := a.Next()
		fmt.Println(at, e)
	}
	// Output:
	// 0s pull
	// 0s input
	// 2ms tick
}
