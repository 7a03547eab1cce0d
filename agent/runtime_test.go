package agent_test

import (
	"context"
	"runtime"
	"testing"

	"github.com/evolvekit/evolve/agent"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestARuntimeStartsNoGoroutineAndShutsDownOnce(t *testing.T) {
	before := runtime.NumGoroutine()
	rt := agent.NewRuntime()
	assert.Equal(t, before, runtime.NumGoroutine())
	require.NoError(t, rt.Shutdown(context.Background()))
	require.NoError(t, rt.Shutdown(context.Background()))
}
