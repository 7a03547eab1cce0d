package livepage_test

import (
	"context"
	"fmt"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/internal/livepage"
	"github.com/evolvekit/evolve/parallel"
)

// A page watching one agent, a chain of one stage, sampled by hand: its
// work is all in flight, so it is busy. A program serves p.Handler() and
// calls p.Run instead (package promserve does both).
func Example() {
	rt := agent.NewRuntime()
	defer rt.Shutdown(context.Background())
	release := make(chan struct{})
	h, err := parallel.New(rt, parallel.Config{Name: "fetch", Limit: 3}, func(_ context.Context, v int) (int, error) {
		<-release
		return v, nil
	}, nil)
	if err != nil {
		panic(err)
	}
	p := livepage.New(nil)
	livepage.Watch(p, h)
	for i := range 3 {
		if err := h.Post(context.Background(), i); err != nil {
			panic(err)
		}
	}
	p.Sample(context.Background(), time.Now())
	s := p.Live().Chains[0].Stages[0]
	fmt.Printf("%s (%s): %d in flight of %d, busy %.0f%%\n", s.Name, s.Kind, s.InFlight, *s.Limit, 100*s.Shares.Busy)
	close(release)
	h.Close()
	if err := h.Wait(context.Background()); err != nil {
		panic(err)
	}
	// Output:
	// fetch (parallel): 3 in flight of 3, busy 100%
}
