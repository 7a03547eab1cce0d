package agenttest

import (
	"context"
	"testing"
	"testing/synctest"

	"github.com/evolvekit/evolve/agent"
)

// Runtime returns a runtime made with opts that is shut down when the test
// ends; the test fails if the shutdown does.
func Runtime(tb testing.TB, opts ...agent.Option) *agent.Runtime {
	tb.Helper()
	rt := agent.NewRuntime(opts...)
	tb.Cleanup(func() {
		if err := rt.Shutdown(context.Background()); err != nil {
			tb.Errorf("shutting the runtime down: %v", err)
		}
	})
	return rt
}

// InBubble runs f in a testing/synctest bubble, with a runtime made inside
// it: the runtime's timers and the work's sleeps run in virtual time, and
// synctest.Wait waits until every goroutine of the bubble is blocked. The
// runtime is shut down before the bubble ends.
func InBubble(t *testing.T, f func(t *testing.T, rt *agent.Runtime), opts ...agent.Option) {
	t.Helper()
	synctest.Test(t, func(t *testing.T) {
		f(t, Runtime(t, opts...))
	})
}
