package agent_test

import (
	"context"
	"fmt"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/agent/agenttest"
	"github.com/evolvekit/evolve/parallel"
)

// A program makes one runtime and starts agents on it, here a parallel
// agent that doubles numbers, and keeps each one's Handle: it posts items,
// closes the input, waits for the agent to finish and reads its status.
func ExampleNewRuntime() {
	rt := agent.NewRuntime()
	defer rt.Shutdown(context.Background())
	ctx := context.Background()

	double := func(_ context.Context, n int) (int, error) { return 2 * n, nil }
	show := func(r parallel.Result[int]) { fmt.Println(r.Seq, r.Value) }
	h, err := parallel.New(rt, parallel.Config{Limit: 4}, double, show)
	if err != nil {
		fmt.Println(err)
		return
	}
	for n := range 3 {
		if err := h.Post(ctx, n); err != nil {
			fmt.Println(err)
		}
	}
	h.Close()
	fmt.Println("wait:", h.Wait(ctx))
	st, err := h.Status(ctx)
	fmt.Println("done:", st.Done, err)
	// Output:
	// 0 0
	// 1 2
	// 2 4
	// wait: <nil>
	// done: 3 <nil>
}

// relay passes its input on while it holds demand and keeps the rest until
// more is granted; each item it passes on gives its input slot back. It
// finishes on Close once it holds nothing.
type relay struct {
	demand  int
	waiting []string
	closed  bool
}

func relayEvolve(s relay, m agent.Msg) (relay, []agent.Effect) {
	switch m := m.(type) {
	case agent.Pull:
		s.demand += m.N
	case agent.Input[string]:
		s.waiting = append(s.waiting[:len(s.waiting):len(s.waiting)], m.Items...)
	case agent.Close:
		s.closed = true
	case agent.Query:
		return s, []agent.Effect{agent.Reply[agent.Load]{To: m.ID, Value: agent.Load{Queued: len(s.waiting), Demand: agent.Credit(s.demand)}}}
	default:
		return s, []agent.Effect{agent.Unhandled{}}
	}
	var fx []agent.Effect
	if n := min(s.demand, len(s.waiting)); n > 0 {
		fx = append(fx, agent.Emit[string]{Values: s.waiting[:n:n]}, agent.Demand{N: n})
		s.waiting, s.demand = s.waiting[n:], s.demand-n
	}
	if s.closed && len(s.waiting) == 0 {
		fx = append(fx, agent.Finish{})
	}
	return s, fx
}

// An agent is an evolve function: a message in, the next state and the
// effects it asks for out, as plain values. Driven by hand, with no runtime,
// relay passes on only what its demand allows.
func Example() {
	tr := agenttest.Run(relayEvolve, relay{},
		agenttest.Step{Msg: agent.Pull{N: 2}},
		agenttest.Step{Msg: agent.Input[string]{Items: []string{"a", "b", "c"}}},
		agenttest.Step{Msg: agent.Close{}},
		agenttest.Step{Msg: agent.Pull{N: 5}},
	)
	for i, t := range tr {
		finished := len(agenttest.Of[agent.Finish](t.Effects)) == 1
		fmt.Printf("step %d: passes on %v; input slots back: %d; finished: %v\n",
			i, agenttest.Emitted[string](t.Effects), agenttest.Demanded(t.Effects), finished)
	}
	// Output:
	// step 0: passes on []; input slots back: 0; finished: false
	// step 1: passes on [a b]; input slots back: 2; finished: false
	// step 2: passes on []; input slots back: 0; finished: false
	// step 3: passes on [c]; input slots back: 1; finished: true
}
