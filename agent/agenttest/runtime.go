package agenttest

import (
	"bytes"
	"context"
	"encoding/json"
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

// LogEvent is one zerolog event as LogStatus writes it.
type LogEvent struct {
	Level   string
	Agent   string
	PID     string
	Message string
	Status  map[string]any
}

// LastLog decodes the last line of a zerolog JSON log, failing the test if it
// is not one event.
func LastLog(tb testing.TB, logs []byte) LogEvent {
	tb.Helper()
	lines := bytes.Split(bytes.TrimSpace(logs), []byte("\n"))
	var ev LogEvent
	if err := json.Unmarshal(lines[len(lines)-1], &ev); err != nil {
		tb.Fatalf("the last log line is not an event: %v\n%s", err, logs)
	}
	return ev
}
