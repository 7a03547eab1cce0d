package book_test

import (
	"fmt"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/remote/internal/book"
	"github.com/evolvekit/evolve/remote/internal/move"
)

// A book steps like any evolve: a worker joins and asks for two tasks, two
// items come, and the book dispatches them, gives their input slots back
// and arms a lease, all as data.
func Example() {
	type result struct {
		Seq   uint64
		Value int
		Err   error
	}
	b := book.New(book.Config[string, int, result]{
		Window: 16, MaxBatch: 8, MaxAttempts: 3, Lease: time.Minute, TagWait: time.Minute,
		Heartbeat: time.Second, Silence: 3 * time.Second, MaxMoves: 16,
		Result: func(seq uint64, v int, err error, _ []move.Step) result { return result{seq, v, err} },
	})
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, m := range []agent.Msg{
		agent.Pull{N: agent.Unbounded},
		agent.Event[book.Joined]{Value: book.Joined{Worker: 1, Addr: "127.0.0.1:7071", Slots: 2}},
		agent.Event[book.Asked]{Value: book.Asked{Worker: 1, N: 2}},
		agent.Input[string]{Items: []string{"a", "b"}},
	} {
		var fx []agent.Effect
		b, fx = book.Evolve(b, agent.Stamp(m, at))
		for _, e := range fx {
			fmt.Printf("%T %+v\n", e, e)
		}
	}
	// Output:
	// agent.Timer {Tag:3 Delay:3s}
	// agent.Send[github.com/evolvekit/evolve/remote/internal/book.Dispatch[string]] {Value:{Worker:1 Tasks:[{Item:0 Attempt:1 Value:a Hops:0} {Item:1 Attempt:1 Value:b Hops:0}]}}
	// agent.Demand {N:2}
	// agent.Timer {Tag:1 Delay:1m0s}
}
