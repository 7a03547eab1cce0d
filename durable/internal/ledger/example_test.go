package ledger_test

import (
	"fmt"
	"time"

	"github.com/evolvekit/evolve/durable/internal/confirm"
	"github.com/evolvekit/evolve/durable/internal/ledger"
)

// A process holds each item it takes by ticket until it lets go of it; a
// message handed out again while still held counts once, and leases are
// renewed as they come due.
func Example() {
	l := ledger.New()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	first := l.Add(nil, "a", 7, confirm.Mark{}, t0)
	l.Add(nil, "a", 7, confirm.Mark{}, t0) // handed out again: its lease ran out
	l.Add(nil, "b", 8, confirm.Mark{}, t0)
	fmt.Println("messages held:", l.Messages())

	fmt.Println("leases due at +30s:", len(l.Due(t0.Add(30*time.Second), 30*time.Second)))
	fmt.Println("leases due at +40s:", len(l.Due(t0.Add(40*time.Second), 30*time.Second)))

	h, ok := l.Take(first)
	fmt.Println("took:", h.Key, h.Seq, ok)
	_, ok = l.Take(first)
	fmt.Println("took again:", ok)
	fmt.Println("messages held:", l.Messages(), "drained:", len(l.Drain()))
	// Output:
	// messages held: 2
	// leases due at +30s: 3
	// leases due at +40s: 0
	// took: a 7 true
	// took again: false
	// messages held: 2 drained: 2
}
