package spawn_test

import (
	"context"
	"fmt"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/compose"
	"github.com/evolvekit/evolve/parallel"
	"github.com/evolvekit/evolve/spawn"
)

// dedupe is a kind of agent of its own: it passes on each word the first
// time it sees it, as its demand allows, and drops the repeats.
type dedupe struct {
	seen    map[string]bool
	waiting []string
	demand  int
	dropped int
	closed  bool
}

// dedupeStatus is what dedupe answers a Query with; it embeds the Load
// every status has.
type dedupeStatus struct {
	agent.Load
	Dropped int
}

func dedupeEvolve(s dedupe, m agent.Msg) (dedupe, []agent.Effect) {
	var fx []agent.Effect
	switch m := m.(type) {
	case agent.Pull:
		s.demand += m.N
	case agent.Input[string]:
		seen := make(map[string]bool, len(s.seen)+len(m.Items)) // the state is a value: copy, then change
		for w := range s.seen {
			seen[w] = true
		}
		dropped := 0
		for _, w := range m.Items {
			if seen[w] {
				dropped++
				continue
			}
			seen[w] = true
			s.waiting = append(s.waiting[:len(s.waiting):len(s.waiting)], w)
		}
		s.seen, s.dropped = seen, s.dropped+dropped
		if dropped > 0 {
			fx = append(fx, agent.Demand{N: dropped}) // a dropped word leaves the queue at once
		}
	case agent.Close:
		s.closed = true
	case agent.Query:
		st := dedupeStatus{Load: agent.Load{Queued: len(s.waiting), Done: len(s.seen), Demand: agent.Credit(s.demand)}, Dropped: s.dropped}
		return s, []agent.Effect{agent.Reply[dedupeStatus]{To: m.ID, Value: st}}
	default:
		return s, []agent.Effect{agent.Unhandled{}}
	}
	if n := min(s.demand, len(s.waiting)); n > 0 {
		fx = append(fx, agent.Emit[string]{Values: s.waiting[:n:n]}, agent.Demand{N: n})
		s.waiting, s.demand = s.waiting[n:], s.demand-n
	}
	if s.closed && len(s.waiting) == 0 {
		fx = append(fx, agent.Finish{})
		s.closed = false
	}
	return s, fx
}

// New runs an agent of your own on a runtime, with its own status type.
func Example() {
	rt := agent.NewRuntime()
	defer rt.Shutdown(context.Background())
	ctx := context.Background()

	h, err := spawn.New[string, dedupeStatus](rt, spawn.Spec[dedupe, struct{}, struct{}, string]{
		Name:   "dedupe",
		Evolve: dedupeEvolve,
	}, func(w string) { fmt.Println(w) })
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, w := range []string{"to", "be", "or", "not", "to", "be"} {
		if err := h.Post(ctx, w); err != nil {
			fmt.Println(err)
			return
		}
	}
	h.Close()
	fmt.Println("wait:", h.Wait(ctx))
	st, err := h.Status(ctx)
	fmt.Println("dropped:", st.Dropped, err)
	// Output:
	// to
	// be
	// or
	// not
	// wait: <nil>
	// dropped: 2 <nil>
}

// A pool, an agent of your own that runs work on at most its limit of
// items at once, shares a chain's 5 workers with a parallel stage: it
// says how its status reads and which setting sets its limit, and the
// chain starts each stage on an even share.
func ExampleSpec_workers() {
	rt := agent.NewRuntime()
	defer rt.Shutdown(context.Background())
	ctx := context.Background()

	double := func(_ context.Context, v int) (int, error) { return 2 * v, nil }
	first, err := spawn.Stage[int, poolStatus](spawn.Spec[pool, int, int, int]{
		Name: "pool", State: pool{limit: 1}, Evolve: poolEvolve, Work: double,
		Workers: poolWorkers, Limit: poolSetLimit, Takes: []agent.Msg{agent.Set[poolLimit]{}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	second, err := parallel.Stage(parallel.Config{Limit: 1}, double)
	if err != nil {
		fmt.Println(err)
		return
	}
	var out []int
	chain, err := compose.Start(rt, compose.Pipe2(first, second), func(v int) { out = append(out, v) }, compose.WithWorkers(5))
	if err != nil {
		fmt.Println(err)
		return
	}
	st, err := chain.Status(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("pool limit", st.Agents[0].Detail.(poolStatus).Limit)
	fmt.Println("parallel limit", st.Agents[1].Detail.(parallel.Status).Limit)
	for v := range 3 {
		if err := chain.Post(ctx, v+1); err != nil {
			fmt.Println(err)
			return
		}
	}
	chain.Close()
	fmt.Println("wait:", chain.Wait(ctx), len(out))
	// Output:
	// pool limit 3
	// parallel limit 2
	// wait: <nil> 3
}
