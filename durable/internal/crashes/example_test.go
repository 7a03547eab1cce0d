package crashes_test

import (
	"fmt"
	"os"
	"time"

	"github.com/evolvekit/evolve/durable/internal/crashes"
)

// A run that dies holding items makes them suspects; the next run works on
// each suspect alone, and a death then charges that item alone.
func Example() {
	dir, err := os.MkdirTemp("", "crashes-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	made := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) // when the stream was made

	c, err := crashes.Open(dir, made, 1)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("first run, suspects:", c.Suspects())
	_ = c.HandOut(40)
	c.Close(false) // the process dies holding items 1 to 40

	if c, err = crashes.Open(dir, made, 1); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("second run, suspects:", c.Suspects())
	c.Work(13, func() { c.Close(false) }) // and dies working on item 13 alone

	if c, err = crashes.Open(dir, made, 1); err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close(true) // this run ends well
	fmt.Println("third run, killed by 13:", c.Killed(13), "by 14:", c.Killed(14))
	// Output:
	// first run, suspects: false
	// second run, suspects: true
	// third run, killed by 13: 1 by 14: 0
}
