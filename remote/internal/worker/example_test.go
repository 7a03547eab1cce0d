package worker_test

import (
	"fmt"
	"time"

	"github.com/evolvekit/evolve/remote/internal/worker"
)

// A session is stepped at made-up instants: it registers, is welcomed,
// beats when quiet, and rejoins a master that goes away.
func Example() {
	s := worker.NewSession(worker.SessionConfig{Master: "127.0.0.1:7070", Stage: "double", Slots: 2, Rejoin: time.Minute, Connect: 5 * time.Second}, 1)
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	show := func(acts []worker.Action) {
		for _, a := range acts {
			fmt.Printf("%T %+v\n", a, a)
		}
	}
	show(s.Step(t0, worker.Start{}))
	// The master counted the Register's ask for its 2 slots: it asks no more.
	show(s.Step(t0, worker.Welcomed{Worker: 4, Incarnation: 9, Nonce: 1, Heartbeat: time.Second, Asked: 2}))
	show(s.Step(t0.Add(time.Second), worker.Tick{Tag: 2}))
	show(s.Step(t0.Add(2*time.Second), worker.Tick{Tag: 3}))
	// Output:
	// worker.Arm {Tag:1 Delay:5s}
	// worker.Register {Nonce:1 Ask:2}
	// worker.Joined {ID:4 Rejoined:false Another:false After:0s}
	// worker.Quiet {Silence:3s}
	// worker.Arm {Tag:2 Delay:1s}
	// worker.Ready {Err:<nil>}
	// worker.Beat {}
	// worker.Arm {Tag:3 Delay:1s}
	// worker.Beat {}
	// worker.Arm {Tag:4 Delay:1s}
}
