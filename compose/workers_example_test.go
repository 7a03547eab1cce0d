package compose_test

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/compose"
	"github.com/evolvekit/evolve/parallel"
)

// Three parallel stages share 6 workers: they start with 2 each, and every
// 20 ms the chain gives them out again where the items wait longest.
func ExampleWithWorkers() {
	rt := agent.NewRuntime()
	defer rt.Shutdown(context.Background())
	ctx := context.Background()

	stage := func(f func(string) string) agent.Stage[string, string] {
		s, err := parallel.Stage(parallel.Config{Limit: 1}, func(_ context.Context, w string) (string, error) {
			return f(w), nil
		})
		if err != nil {
			panic(err)
		}
		return s
	}
	trim, upper, quote := stage(strings.TrimSpace), stage(strings.ToUpper), stage(func(w string) string { return "'" + w + "'" })
	var out []string
	chain, err := compose.Start(rt, compose.Pipe3(trim, upper, quote), func(w string) { out = append(out, w) },
		compose.WithWorkers(6), compose.WithWorkersPeriod(20*time.Millisecond))
	if err != nil {
		fmt.Println(err)
		return
	}
	st, err := chain.Status(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, s := range st.Agents {
		fmt.Println(s.Name, "limit", s.Detail.(parallel.Status).Limit)
	}
	for _, w := range []string{" shared ", " workers "} {
		if err := chain.Post(ctx, w); err != nil {
			fmt.Println(err)
			return
		}
	}
	chain.Close()
	fmt.Println("wait:", chain.Wait(ctx), out)
	// Output:
	// parallel limit 2
	// parallel limit 2
	// parallel limit 2
	// wait: <nil> ['SHARED' 'WORKERS']
}
