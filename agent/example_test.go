package agent_test

import (
	"context"
	"fmt"

	"github.com/evolvekit/evolve/agent"
)

// counter is a whole agent: it passes input through while it holds demand,
// gives each input slot back at once, and finishes on Close.
type counter struct {
	demand int
	seen   int
}

func counterEvolve(s counter, m agent.Msg) (counter, []agent.Effect) {
	switch m := m.(type) {
	case agent.Pull:
		s.demand += m.N
	case agent.Input[string]:
		s.seen += len(m.Items)
		s.demand -= len(m.Items) // a standalone agent holds unbounded demand
		return s, []agent.Effect{agent.Emit[string]{Values: m.Items}, agent.Demand{N: len(m.Items)}}
	case agent.Close:
		return s, []agent.Effect{agent.Finish{}}
	case agent.Query:
		return s, []agent.Effect{agent.Reply[int]{To: m.ID, Value: s.seen}}
	}
	return s, nil
}

// An agent is an evolve function run by the runtime. Spawn returns a handle
// to post to; emitted values go to the sink.
func Example() {
	rt := agent.NewRuntime()
	defer rt.Shutdown(context.Background())

	h, err := agent.Spawn(rt, agent.Spec[counter, string, struct{}, struct{}, string, int]{
		Name:   "counter",
		Evolve: counterEvolve,
		Queue:  8,
		Sink:   func(s string) { fmt.Println("out:", s) },
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	for _, w := range []string{"a", "b", "c"} {
		if err := h.Post(ctx, w); err != nil {
			fmt.Println(err)
		}
	}
	seen, _ := h.Status(ctx)
	fmt.Println("seen:", seen)
	h.Close()
	fmt.Println("wait:", h.Wait(ctx))
	// Output:
	// out: a
	// out: b
	// out: c
	// seen: 3
	// wait: <nil>
}
