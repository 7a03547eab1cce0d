package grant_test

import (
	"fmt"
	"time"

	"github.com/evolvekit/evolve/durable/internal/grant"
)

// A process alone asks for a share of a limit no process has made yet: it
// reads the table, writes its entry, and once the write is taken spends
// the whole limit until its lease ends, renewing it half a period on.
func Example() {
	k := grant.NewKeeper(grant.Config{ID: 1, Rate: 100, Burst: 10, Period: time.Second, Margin: 50 * time.Millisecond})
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	show := func(acts []grant.Action) {
		for _, a := range acts {
			if p, ok := a.(grant.Put); ok {
				fmt.Printf("Put %s create %v\n", p.Table.Encode(), p.Create)
				continue
			}
			fmt.Printf("%T %+v\n", a, a)
		}
	}
	show(k.Step(t0, grant.Use{Demand: 150}))
	show(k.Step(t0.Add(2*time.Millisecond), grant.Read{}))
	show(k.Step(t0.Add(4*time.Millisecond), grant.Wrote{}))
	// Output:
	// grant.Get {}
	// Put {"rate":100,"burst":10,"entries":[{"id":1,"rate":100,"burst":10,"demand":150,"ver":1}]} create true
	// grant.Apply {Limit:{Rate:100 Burst:10 Until:2026-01-01 00:00:00.952 +0000 UTC}}
	// grant.Arm {Delay:498ms}
}
