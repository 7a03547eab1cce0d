package compose_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/buffer"
	"github.com/evolvekit/evolve/compose"
	"github.com/evolvekit/evolve/parallel"
	"github.com/evolvekit/evolve/rate"
)

// A rate agent, a parallel agent and a buffer agent in one chain: words go
// through at no more than 1000 a second, are upper-cased four at a time, and
// come out in lines of three.
func Example() {
	rt := agent.NewRuntime()
	defer rt.Shutdown(context.Background())
	ctx := context.Background()

	limit, err := rate.Stage(rate.Config[string]{Rate: 1000, Burst: 10})
	if err != nil {
		fmt.Println(err)
		return
	}
	upper, err := parallel.Stage(parallel.Config{Limit: 4}, func(_ context.Context, w string) (string, error) {
		return strings.ToUpper(w), nil
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	lines, err := buffer.Stage(buffer.Config[string]{Size: 3}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	chain, err := compose.Start(rt, compose.Pipe3(limit, upper, lines), func(line []string) {
		fmt.Println(strings.Join(line, " "))
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, w := range strings.Fields("the quick brown fox jumps over the lazy dog again") {
		if err := chain.Post(ctx, w); err != nil {
			fmt.Println(err)
			return
		}
	}
	chain.Close()
	fmt.Println("wait:", chain.Wait(ctx))
	// Output:
	// THE QUICK BROWN
	// FOX JUMPS OVER
	// THE LAZY DOG
	// AGAIN
	// wait: <nil>
}
