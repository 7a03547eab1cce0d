package damage_test

import (
	"fmt"
	"os"

	"github.com/evolvekit/evolve/durable/internal/damage"
)

// A clean close records what the stream held; the next open reads the
// record back and compares it with what the stream holds once NATS opened it.
func Example() {
	dir, err := os.MkdirTemp("", "damage-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)

	closed := &damage.Record{Name: "q", Items: 10, Msgs: 10, Held: damage.Held(1, 10, nil)}
	if err := closed.Write(dir); err != nil {
		fmt.Println(err)
		return
	}
	last, err := damage.Read(dir)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("block files changed:", last.Changed)
	now := damage.State{Items: 7, Msgs: 7, Held: damage.Held(1, 10, []uint64{4, 5, 9})}
	if rep, lost := damage.Compare(last, now); lost {
		fmt.Println(rep)
	}
	fmt.Println(damage.Forget(dir))
	// Output:
	// block files changed: false
	// 3 of its 10 items lost, at sequences 4-5, 9
	// <nil>
}
