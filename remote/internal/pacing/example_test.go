package pacing_test

import (
	"fmt"

	"github.com/evolvekit/evolve/remote/internal/pacing"
)

// A master behind a pacer opens room for the items its workers could
// take, hands out tasks only on the tokens the items that came brought,
// and reserves a pass for an item taken back from a worker, which starts
// on the pass's token when it comes.
func ExamplePacer() {
	var p pacing.Pacer
	p.Follow()
	fmt.Println("room opened:", p.Open(4, 10, 8)) // 4 places free on the workers

	p.Came(3) // three items came, a token each
	fmt.Println("tokens:", p.Tokens(), "room left:", p.Room())
	p.Spend(3) // three tasks handed out

	// A worker went: one of its items is queued, and another may take it.
	fmt.Println("passes to ask for:", p.Reserve(1))
	fmt.Println("pass came:", p.Pass(1), "tokens:", p.Tokens(), "reserved:", p.Reserved())
	p.Spend(1)

	p.Close() // the stage takes no more items
	fmt.Println("room after close:", p.Room())
	// Output:
	// room opened: 4
	// tokens: 3 room left: 1
	// passes to ask for: 1
	// pass came: true tokens: 1 reserved: 0
	// room after close: 0
}
