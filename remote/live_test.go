//go:build !race

// The tests in this file break what lies between a master and its workers,
// with real processes and real sockets: they cut connections with a proxy
// of their own (proxy_test.go), stop the master's process, kill it and
// start it again at the same address. Each logs how long the fault took to
// be noticed and repaired.

package remote_test

import (
	"syscall"
	"testing"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/remote"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// beat is the heartbeat of the tests' masters.
const beat = 100 * time.Millisecond

// newID waits, within d, until the master has one worker whose ID is not
// was, and reports when it saw it.
func newID(t *testing.T, h agent.Handle[int, remote.Status], was uint64, d time.Duration) time.Time {
	t.Helper()
	eventually(t, h, d, "the worker rejoins", func(s remote.Status) bool {
		return len(s.Workers) == 1 && s.Workers[0].ID != was
	})
	return time.Now()
}

func TestWorkerToMasterConnectionResetIsRepaired(t *testing.T) {
	const n = 2000
	p := newProxy(t, "")
	bind := freeAddr(t)
	p.mu.Lock()
	p.target = bind
	p.mu.Unlock()
	node, err := remote.ListenAdvertising(bind, p.addr())
	require.NoError(t, err)
	h, c := masterOn(t, node, remote.Config[int]{Name: "reset", Heartbeat: beat})
	w := startWorker(t, p.addr(), "reset", 4, "", "w", time.Millisecond)
	eventually(t, h, 10*time.Second, "the worker registers", func(s remote.Status) bool { return len(s.Workers) == 1 })
	was := status(t, h).Workers[0].ID
	done := make(chan struct{})
	go func() { defer close(done); post(t, h, 0, n) }()
	c.await(t, n/4, 20*time.Second)
	cut := time.Now()
	require.Positive(t, p.cut(), "the worker's connection to the master went through the proxy")
	noticed := w.await(t, "lost its master", 5*time.Second)
	back := newID(t, h, was, 5*time.Second)
	<-done
	finish(t, h)
	c.checkOnce(t, n)
	w.alive(t)
	t.Logf("worker to master reset: noticed after %v, rejoined after %v; status %+v",
		noticed.at.Sub(cut).Round(time.Millisecond), back.Sub(cut).Round(time.Millisecond), status(t, h).Load)
	assert.NoError(t, w.wait(t, 10*time.Second), "the worker ends cleanly once the stage has finished")
}

func TestMasterToWorkerConnectionResetIsRepaired(t *testing.T) {
	const n = 2000
	listen := freeAddr(t)
	p := newProxy(t, listen)
	node, h, c := master(t, remote.Config[int]{Name: "reset", Heartbeat: beat})
	w := startWorker(t, node.Addr(), "reset", 4, "", "w", time.Millisecond,
		opts("listen="+listen, "advertise="+p.addr()))
	eventually(t, h, 10*time.Second, "the worker registers", func(s remote.Status) bool { return len(s.Workers) == 1 })
	was := status(t, h).Workers[0].ID
	require.Equal(t, p.addr(), status(t, h).Workers[0].Addr, "the master reaches the worker through the proxy")
	done := make(chan struct{})
	go func() { defer close(done); post(t, h, 0, n) }()
	c.await(t, n/4, 20*time.Second)
	cut := time.Now()
	require.Positive(t, p.cut(), "the master's connection to the worker went through the proxy")
	noticed := w.await(t, "lost its master", 5*time.Second)
	back := newID(t, h, was, 5*time.Second)
	<-done
	finish(t, h)
	c.checkOnce(t, n)
	w.alive(t)
	t.Logf("master to worker reset: the worker noticed after %v, rejoined after %v; status %+v",
		noticed.at.Sub(cut).Round(time.Millisecond), back.Sub(cut).Round(time.Millisecond), status(t, h).Load)
	assert.NoError(t, w.wait(t, 10*time.Second), "the worker ends cleanly once the stage has finished")
}

func TestStoppedMasterIsRejoined(t *testing.T) {
	const n = 600
	addr := freeAddr(t)
	m := startMaster(t, "master", addr, "pause", n, 0, beat)
	a := startWorker(t, addr, "pause", 2, "", "a", 5*time.Millisecond, opts("rejoin=20s"))
	b := startWorker(t, addr, "pause", 2, "", "b", 5*time.Millisecond, opts("rejoin=20s"))
	a.await(t, "joined its master", 10*time.Second)
	b.await(t, "joined its master", 10*time.Second)
	m.await(t, "R 50 ", 10*time.Second)
	m.stopped(t)
	stop := time.Now()
	na := a.await(t, "lost its master", 5*time.Second)
	nb := b.await(t, "lost its master", 5*time.Second)
	m.signal(t, syscall.SIGCONT)
	cont := time.Now()
	ra := a.await(t, "rejoined its master", 5*time.Second)
	rb := b.await(t, "rejoined its master", 5*time.Second)
	by, _ := collect(t, m, 51, n, 0, 20*time.Second)
	require.NoError(t, m.wait(t, 10*time.Second))
	t.Logf("master stopped: workers noticed after %v and %v (heartbeat %v); after SIGCONT they rejoined in %v and %v; by worker %v",
		na.at.Sub(stop).Round(time.Millisecond), nb.at.Sub(stop).Round(time.Millisecond), beat,
		ra.at.Sub(cont).Round(time.Millisecond), rb.at.Sub(cont).Round(time.Millisecond), by)
	for _, w := range []*proc{a, b} {
		assert.NoError(t, w.wait(t, 10*time.Second), "%s ends cleanly once the stage has finished", w.label)
	}
}

func TestRestartedMasterIsRejoined(t *testing.T) {
	addr := freeAddr(t)
	old := startMaster(t, "old master", addr, "again", 400, 1000, beat)
	a := startWorker(t, addr, "again", 2, "", "a", 20*time.Millisecond, opts("rejoin=20s"))
	b := startWorker(t, addr, "again", 2, "", "b", 20*time.Millisecond, opts("rejoin=20s"))
	a.await(t, "joined its master", 10*time.Second)
	b.await(t, "joined its master", 10*time.Second)
	old.await(t, "R 20 ", 10*time.Second)
	old.signal(t, syscall.SIGKILL)
	killed := time.Now()
	na := a.await(t, "lost its master", 5*time.Second)
	nb := b.await(t, "lost its master", 5*time.Second)
	// The new run numbers its items from 0 again; its values are others,
	// so a result of the old run taken for one of the new shows.
	const n = 400
	started := time.Now()
	m := startMaster(t, "new master", addr, "again", n, 0, beat)
	by, first := collect(t, m, 0, n, 0, 20*time.Second)
	require.NoError(t, m.wait(t, 10*time.Second))
	assert.Equal(t, n, by["a"]+by["b"], "the old workers did the new run's items")
	t.Logf("master killed: workers noticed after %v and %v; restarted %v after the kill, its first result came %v after; by worker %v",
		na.at.Sub(killed).Round(time.Millisecond), nb.at.Sub(killed).Round(time.Millisecond), started.Sub(killed).Round(time.Millisecond),
		first.Sub(started).Round(time.Millisecond), by)
	for _, w := range []*proc{a, b} {
		assert.NoError(t, w.wait(t, 10*time.Second), "%s ends cleanly once the stage has finished", w.label)
	}
}

func TestWorkerGivesUpAMasterThatNeverComesBack(t *testing.T) {
	const window = time.Second
	addr := freeAddr(t)
	m := startMaster(t, "master", addr, "gone", 1000, 0, beat)
	w := startWorker(t, addr, "gone", 2, "", "w", 5*time.Millisecond, opts("rejoin="+window.String()))
	m.await(t, "R 10 ", 10*time.Second)
	m.signal(t, syscall.SIGKILL)
	killed := time.Now()
	noticed := w.await(t, "lost its master", 5*time.Second)
	gone := w.await(t, "the master is gone", 5*time.Second)
	require.Error(t, w.wait(t, 5*time.Second), "the worker fails once its window has passed")
	ended := time.Now()
	assert.GreaterOrEqual(t, gone.at.Sub(noticed.at), window-50*time.Millisecond, "it kept trying for its window")
	assert.Less(t, ended.Sub(gone.at), time.Second, "it ends promptly once it has given up")
	t.Logf("master gone: noticed after %v; the worker gave up %v later (window %v) and exited %v after that",
		noticed.at.Sub(killed).Round(time.Millisecond), gone.at.Sub(noticed.at).Round(time.Millisecond), window,
		ended.Sub(gone.at).Round(time.Millisecond))
}

func TestSilentWorkerIsGivenUpAndRejoins(t *testing.T) {
	const n = 400
	node, h, c := master(t, remote.Config[int]{Name: "silent", Heartbeat: beat})
	w := startWorker(t, node.Addr(), "silent", 2, "", "w", 2*time.Millisecond)
	eventually(t, h, 10*time.Second, "the worker registers", func(s remote.Status) bool { return len(s.Workers) == 1 })
	was := status(t, h).Workers[0].ID
	done := make(chan struct{})
	go func() { defer close(done); post(t, h, 0, n) }()
	c.await(t, 20, 10*time.Second)
	w.stopped(t)
	stop := time.Now()
	eventually(t, h, 5*time.Second, "the master gives the silent worker up", func(s remote.Status) bool { return len(s.Workers) == 0 })
	noticed := time.Now()
	st := status(t, h)
	assert.Positive(t, st.Requeued, "its items are queued again")
	w.signal(t, syscall.SIGCONT)
	cont := time.Now()
	back := newID(t, h, was, 5*time.Second)
	<-done
	finish(t, h)
	c.checkOnce(t, n)
	t.Logf("silent worker: given up after %v (heartbeat %v), rejoined %v after SIGCONT; status %+v",
		noticed.Sub(stop).Round(time.Millisecond), beat, back.Sub(cont).Round(time.Millisecond), status(t, h).Load)
}
