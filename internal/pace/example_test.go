package pace_test

import (
	"fmt"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/internal/pace"
)

// A pacer's evolve takes a Reservation as an agent.Event and answers with a
// Grant as an agent.Send.
func Example() {
	var m agent.Msg = pace.In(pace.Reservation{N: 2})
	switch m := m.(type) {
	case agent.Event[pace.Reservation]:
		fx := pace.Out(pace.Grant{N: m.Value.N})
		fmt.Printf("%+v\n", fx)
	}
	// Output:
	// {Value:{N:2}}
}
