//go:build !race

// Two nodes in one process: protoactor's remote sets gRPC's logger as it
// starts, which the race detector reports (see remote/process_test.go).

package master_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/codec"
	"github.com/evolvekit/evolve/internal/core"
	"github.com/evolvekit/evolve/remote/internal/book"
	"github.com/evolvekit/evolve/remote/internal/master"
	"github.com/evolvekit/evolve/remote/internal/node"
	"github.com/evolvekit/evolve/remote/internal/wire"
	"github.com/rs/zerolog"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAWorkersWelcomeGoesBeforeItsFirstTasks: a book that hands a worker
// tasks the moment it hears the Register's ask, on the same goroutine
// (the quickest a book could be), does not get them to the worker before
// its Welcome, which the worker needs to take them.
func TestAWorkersWelcomeGoesBeforeItsFirstTasks(t *testing.T) {
	listen := func() *node.Node {
		n, err := node.Listen("127.0.0.1:0", "", nil, wire.DefaultMaxMessage)
		require.NoError(t, err)
		t.Cleanup(func() { _ = n.Close() })
		return n
	}
	mn, wn := listen(), listen()
	cfg := master.Config{Name: "first", Append: codec.JSON.Append, Decode: codec.JSON.Decode, MaxSlots: 8, Heartbeat: time.Second, Lease: time.Minute,
		WorkError: func(addr, text string) error { return fmt.Errorf("%s: %s", addr, text) }}
	var port core.Port
	post := func(m agent.Msg) bool {
		if a, ok := m.(agent.Event[book.Asked]); ok {
			port.Send(agent.Send[book.Dispatch[int]]{Value: book.Dispatch[int]{Worker: a.Value.Worker,
				Tasks: []book.Task[int]{{Item: 0, Attempt: 1, Value: 5}}}})
		}
		return true
	}
	port, err := master.Open[int, int](mn, cfg, post, zerolog.Nop())
	require.NoError(t, err)
	t.Cleanup(port.Close)

	got := make(chan any, 4)
	self, err := wn.System().Root.SpawnNamed(actor.PropsFromFunc(func(ctx actor.Context) {
		switch m := ctx.Message().(type) {
		case *actor.Started:
			ctx.Request(actor.NewPID(mn.Addr(), "first"), &wire.Register{Stage: "first", Slots: 1, Ask: 1, Nonce: 1})
		case *wire.Welcome, *wire.Tasks:
			got <- m
		}
	}), "worker")
	require.NoError(t, err)
	t.Cleanup(func() { _ = wn.System().Root.StopFuture(self).Wait() })
	for i, want := range []string{"*wire.Welcome", "*wire.Tasks"} {
		select {
		case m := <-got:
			assert.Equal(t, want, fmt.Sprintf("%T", m), "message %d to the worker", i)
		case <-time.After(10 * time.Second):
			t.Fatalf("message %d (%s) did not come", i, want)
		}
	}
}
