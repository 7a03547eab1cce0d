package bridge_test

import (
	"context"
	"fmt"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/internal/bridge"
)

// The machinery reaches a runtime's actor system and clock through the
// hooks package agent fills in.
func Example() {
	rt := agent.NewRuntime()
	defer rt.Shutdown(context.Background())
	parts := bridge.Runtime(rt)
	fmt.Println(parts.System != nil, parts.Clock.Now().IsZero())
	// Output: true false
}
