package agent_test

import (
	"context"
	"errors"
	"testing"

	"github.com/evolvekit/evolve/agent"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestPostCloseWaitDeliversEverythingInOrder(t *testing.T) {
	rt := agent.NewRuntime()
	defer rt.Shutdown(context.Background())
	var got []int
	h, err := spawnEcho(rt, 4, nil, func(v int) { got = append(got, v) })
	require.NoError(t, err)
	ctx := context.Background()
	for i := 1; i <= 1000; i++ {
		require.NoError(t, h.Post(ctx, i))
	}
	h.Close()
	require.NoError(t, h.Wait(ctx))
	require.Len(t, got, 1000)
	for i, v := range got {
		require.Equal(t, i+1, v)
	}
	require.ErrorIs(t, h.Post(ctx, 1), agent.ErrClosed)
	st, err := h.Status(ctx)
	require.NoError(t, err)
	require.Equal(t, 1000, st.Seen)
	require.NoError(t, h.Stop(ctx))
	_, err = h.Status(ctx)
	require.ErrorIs(t, err, agent.ErrClosed)
}

func TestWorkPanicBecomesError(t *testing.T) {
	rt := agent.NewRuntime()
	defer rt.Shutdown(context.Background())
	h, err := spawnEcho(rt, 4, func(context.Context, int) (int, error) { panic("boom") }, nil)
	require.NoError(t, err)
	ctx := context.Background()
	require.NoError(t, h.Post(ctx, -1))
	h.Close()
	err = h.Wait(ctx)
	var pe *agent.PanicError
	require.ErrorAs(t, err, &pe)
	require.Equal(t, "boom", pe.Value)
	require.Contains(t, string(pe.Stack), "runtime_test.go")
	_ = errors.Is
}
