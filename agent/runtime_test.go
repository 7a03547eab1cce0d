package agent_test

import (
	"context"
	"testing"

	"github.com/evolvekit/evolve/agent"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestARuntimeStartsNoGoroutineAndShutsDownOnce(t *testing.T) {
	running := goleak.IgnoreCurrent()
	rt := agent.NewRuntime()
	goleak.VerifyNone(t, running) // none but those running before, which may end meanwhile
	require.NoError(t, rt.Shutdown(context.Background()))
	require.NoError(t, rt.Shutdown(context.Background()))
}
