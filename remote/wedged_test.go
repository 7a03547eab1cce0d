//go:build !race

package remote_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"os/exec"
	"testing"
	"time"

	"github.com/evolvekit/evolve/remote"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A worker started with the delay wedges never returns from the work on
// every wedgeEvery-th item, wherever it goes.
const (
	wedges     = -2 * time.Nanosecond
	wedgeEvery = 200
)

// health returns what a worker's health at addr answers.
func health(t *testing.T, addr string) (int, string) {
	t.Helper()
	resp, err := http.Get("http://" + addr + "/healthz")
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, string(body)
}

// Three workers of eight slots whose work hangs for ever on every 200th
// item: each such item hangs a slot on each worker it visits until its
// attempts run out, and after eight of them no slot is free anywhere.
// Every item is then accounted for within TagWait and a few seconds: the
// queued ones fail with ErrNoWorker after TagWait, and those that come
// after at once, rather than one queue's worth a TagWait. Each worker's
// health says it is wedged.
func TestWedgedWorkersEndTheStageQuicklyAndSaySo(t *testing.T) {
	const n, slots = 20000, 8
	const lease, wait = 300 * time.Millisecond, time.Second
	node, h, c := master(t, remote.Config[int]{Name: "wedged", Lease: lease, TagWait: wait, MaxAttempts: 3,
		Heartbeat: 100 * time.Millisecond, Unordered: true})
	var addrs []string
	for _, label := range []string{"a", "b", "c"} {
		addr := freeAddr(t)
		addrs = append(addrs, addr)
		startWorker(t, node.Addr(), "wedged", slots, "", label, wedges, opts("health="+addr))
	}
	eventually(t, h, 10*time.Second, "the workers register", func(s remote.Status) bool { return len(s.Workers) == 3 })
	for _, addr := range addrs {
		code, body := health(t, addr)
		assert.Equal(t, http.StatusOK, code, "a worker at work is healthy: %s", body)
	}
	posted := make(chan error, 1)
	go func() {
		for i := range n {
			if err := h.Post(context.Background(), i); err != nil {
				posted <- err
				return
			}
		}
		posted <- nil
	}()
	eventually(t, h, 60*time.Second, "every slot of every worker hangs", func(s remote.Status) bool {
		hung := 0
		for _, w := range s.Workers {
			hung += w.Hung
		}
		return hung == 3*slots
	})
	allHung := time.Now()
	c.await(t, n, wait+10*time.Second)
	t.Logf("every item was accounted for %v after the last slot hung (TagWait %v)", time.Since(allHung).Round(time.Millisecond), wait)
	require.NoError(t, <-posted)

	c.mu.Lock()
	var ok, noWorker, leaseExpired int
	for _, r := range c.results {
		switch {
		case r.Err == nil:
			ok++
		case errors.Is(r.Err, remote.ErrNoWorker):
			noWorker++
		case errors.Is(r.Err, remote.ErrLeaseExpired):
			leaseExpired++
			assert.Equal(t, uint64(wedgeEvery-1), r.Seq%wedgeEvery, "only a wedging item fails for its lease: %v", r.Err)
		default:
			t.Errorf("item %d: %v", r.Seq, r.Err)
		}
	}
	assert.Len(t, c.seen, n, "every item once")
	c.mu.Unlock()
	t.Logf("%d items done, %d failed with ErrNoWorker, %d for their leases", ok, noWorker, leaseExpired)
	assert.Equal(t, n, ok+noWorker+leaseExpired)
	assert.Positive(t, noWorker)

	for _, addr := range addrs {
		require.Eventually(t, func() bool { code, _ := health(t, addr); return code == http.StatusServiceUnavailable },
			5*time.Second, 50*time.Millisecond, "the worker at %s says it is wedged", addr)
		_, body := health(t, addr)
		assert.Contains(t, body, "wedged: every slot has run one task for longer than the master's lease")
	}
}

// A worker told to end when wedged does, naming the items it hung on; a
// worker started in its place takes work again.
func TestAWedgedWorkerToldToEndDoesAndItsRestartTakesWorkAgain(t *testing.T) {
	node, h, c := master(t, remote.Config[int]{Name: "restart", Lease: 300 * time.Millisecond, TagWait: time.Second,
		MaxAttempts: 1, Heartbeat: 100 * time.Millisecond})
	w := startWorker(t, node.Addr(), "restart", 1, "", "a", wedges, opts("endwedged=1"))
	post(t, h, 0, wedgeEvery)
	c.await(t, wedgeEvery, 20*time.Second)
	c.mu.Lock()
	// The wedged item fails as its lease expires; or, on a loaded machine
	// where the master's lease timer comes late, as the worker, which
	// counted the lease out too and ended, is lost: two clocks in two
	// processes, either first.
	if err := c.results[wedgeEvery-1].Err; !errors.Is(err, remote.ErrLeaseExpired) {
		assert.ErrorIs(t, err, remote.ErrWorkerLost, "the wedged item failed for its lease, or its worker's end")
	}
	c.mu.Unlock()
	ended := w.await(t, "error: remote: the worker is wedged", 10*time.Second)
	assert.Contains(t, ended.text, "items [199]")
	var exit *exec.ExitError
	require.ErrorAs(t, w.wait(t, 10*time.Second), &exit, "Work returned its error, and the process exited 1")

	startWorker(t, node.Addr(), "restart", 1, "", "b", 0)
	post(t, h, wedgeEvery, wedgeEvery+10)
	c.await(t, 10, 10*time.Second)
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, r := range c.results[wedgeEvery:] {
		require.NoError(t, r.Err)
		assert.Equal(t, "b", r.Value.Worker)
	}
}
