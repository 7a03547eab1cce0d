//go:build !race

package remote_test

import (
	"context"
	"errors"
	"os/exec"
	"testing"
	"time"

	"github.com/evolvekit/evolve/remote"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A worker started with the delay hangs never returns from the work on
// item hangItem, and abandons it after hangGrace.
const (
	hangs     = -time.Nanosecond
	hangItem  = 7
	hangGrace = 300 * time.Millisecond
)

func TestAStageWithHungWorkFinishesAndItsWorkersEnd(t *testing.T) {
	const n = 400
	node, h, c := master(t, remote.Config[int]{Name: "hung", Lease: 300 * time.Millisecond, MaxAttempts: 2})
	ws := []*proc{
		startWorker(t, node.Addr(), "hung", 3, "", "a", hangs),
		startWorker(t, node.Addr(), "hung", 3, "", "b", hangs),
	}
	eventually(t, h, 10*time.Second, "both workers register", func(s remote.Status) bool { return len(s.Workers) == 2 })
	posted := time.Now()
	post(t, h, 0, n)
	eventually(t, h, 10*time.Second, "an item's lease expires", func(s remote.Status) bool { return s.Requeued > 0 })
	t.Logf("work hung: the item's lease (%v) expired and it was queued again %v after it was posted", 300*time.Millisecond, time.Since(posted).Round(time.Millisecond))
	c.await(t, n, 20*time.Second)
	st := status(t, h)
	hung, holders := 0, 0
	for _, w := range st.Workers {
		hung += w.Hung
		if w.Hung > 0 {
			holders++
		}
	}
	assert.Equal(t, 2, hung, "the item hung twice, and each attempt still holds a slot")
	assert.Equal(t, 1, st.Failed)
	h.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	require.ErrorIs(t, h.Wait(ctx), remote.ErrLeaseExpired, "the item failed its two attempts")
	c.mu.Lock()
	for i, r := range c.results {
		require.Equal(t, uint64(i), r.Seq)
		if i == hangItem {
			assert.ErrorIs(t, r.Err, remote.ErrLeaseExpired)
			continue
		}
		require.NoError(t, r.Err, "item %d", i)
	}
	c.mu.Unlock()
	failed := 0
	for _, w := range ws {
		var exit *exec.ExitError
		if err := w.wait(t, 10*time.Second); errors.As(err, &exit) {
			failed++
		}
	}
	assert.Equal(t, holders, failed,
		"told the stage finished, a worker with hung work abandons it after its grace, and says so")
}

func TestWorkReturnsAfterItsGraceThoughWorkIgnoresItsContext(t *testing.T) {
	node, h, c := master(t, remote.Config[int]{Name: "grace"})
	release, stuck := make(chan struct{}), make(chan struct{}, 1)
	t.Cleanup(func() { close(release) }) // the abandoned call returns then
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	const grace = 200 * time.Millisecond
	ended := make(chan error, 1)
	go func() {
		ended <- remote.Work(ctx, remote.WorkerConfig{Master: node.Addr(), Stage: "grace", Slots: 2, Grace: grace},
			func(_ context.Context, v int) (job, error) {
				if v == 1 {
					stuck <- struct{}{}
					<-release
				}
				return job{V: 2 * v}, nil
			})
	}()
	post(t, h, 0, 3)
	c.await(t, 1, 10*time.Second)
	// Item 2's result comes from the other slot too, and waits behind item
	// 1's: only then is item 1 the one item the worker holds, and the one
	// it hands back.
	eventually(t, h, 10*time.Second, "item 2's result is held", func(s remote.Status) bool { return s.Held == 1 })
	select {
	case <-stuck:
	case <-time.After(10 * time.Second):
		t.Fatal("the work on item 1 did not start")
	}
	start := time.Now()
	cancel()
	var err error
	select {
	case err = <-ended:
	case <-time.After(10 * time.Second):
		t.Fatal("Work did not return")
	}
	assert.GreaterOrEqual(t, time.Since(start), grace, "Work waited its grace for the work")
	require.ErrorIs(t, err, remote.ErrAbandoned)
	assert.Contains(t, err.Error(), "on items [1]")
	eventually(t, h, 10*time.Second, "the worker left, and item 1 is queued again", func(s remote.Status) bool {
		return len(s.Workers) == 0 && s.Queued == 1
	})
	assert.Zero(t, status(t, h).Failed, "handed back: no attempt failed")
}

func TestAWorkerHoldsItsPrefetchBeyondItsSlots(t *testing.T) {
	node, h, _ := master(t, remote.Config[int]{Name: "prefetch", MaxPrefetch: 3})
	release := make(chan struct{})
	ctx, cancel := context.WithCancel(context.Background())
	ended := make(chan error, 1)
	go func() {
		ended <- remote.Work(ctx, remote.WorkerConfig{Master: node.Addr(), Stage: "prefetch", Slots: 1, Prefetch: 8},
			func(_ context.Context, v int) (job, error) {
				<-release
				return job{V: 2 * v}, nil
			})
	}()
	t.Cleanup(func() {
		close(release)
		cancel()
		assert.NoError(t, <-ended)
	})
	post(t, h, 0, 6)
	eventually(t, h, 10*time.Second, "the worker holds its slot's item and the 3 granted", func(s remote.Status) bool {
		return len(s.Workers) == 1 && s.Workers[0].InFlight == 4 && s.Queued == 2
	})
	st := status(t, h)
	assert.Equal(t, 1, st.Workers[0].Slots)
	assert.Zero(t, st.Workers[0].Free, "it asked for no more than granted")
}
