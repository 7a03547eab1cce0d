//go:build !race

package remote_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/evolvekit/evolve/compose"
	"github.com/evolvekit/evolve/rate"
	"github.com/evolvekit/evolve/remote"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// startsEnv names the URL a test worker tells, before each task's work,
// that the task started (see tellStart).
const startsEnv = "EVOLVE_REMOTE_TEST_STARTS"

// tellStart tells url that a task starts, as the API a rate limit guards
// would see its request: at once, whatever becomes of the task.
func tellStart(ctx context.Context, url string) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, nil)
	if err != nil {
		return
	}
	if resp, err := http.DefaultClient.Do(req); err == nil {
		_ = resp.Body.Close()
	}
}

// startLog keeps the instants at which tasks told it they started.
type startLog struct {
	mu sync.Mutex
	at []time.Time
}

func (l *startLog) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	l.mu.Lock()
	l.at = append(l.at, time.Now())
	l.mu.Unlock()
}

// worst returns the most starts in any window of length d.
func (l *startLog) worst(d time.Duration) int {
	l.mu.Lock()
	at := slices.Clone(l.at)
	l.mu.Unlock()
	slices.SortFunc(at, func(a, b time.Time) int { return a.Compare(b) })
	most, j := 0, 0
	for i := range at {
		for at[i].Sub(at[j]) >= d {
			j++
		}
		most = max(most, i-j+1)
	}
	return most
}

// A rate stage before a remote stage paces the tasks' starts on the
// workers, first attempts and retries alike: three worker processes of 64
// slots each, whose work takes 400 ms (so that each holds about 40 tasks
// at work), one of them killed with SIGKILL, start
// no more tasks in any window of length t than burst + rate·t (but the
// spread of the delivery's delay),
// and every item comes out once.
func TestAPacedStageStartsTasksAtTheRate(t *testing.T) {
	const (
		n     = 900
		per   = 300.0 // a second
		burst = 10
	)
	starts := &startLog{}
	api := httptest.NewServer(starts)
	t.Cleanup(api.Close)
	node, rt := nodeAndRuntime(t)
	limit, err := rate.Stage(rate.Config[int]{Rate: per, Burst: burst})
	require.NoError(t, err)
	work, err := remote.Stage[int, job](remote.Config[int]{Node: node, Name: "paced"})
	require.NoError(t, err)
	var mu sync.Mutex
	seen := make(map[int]int)
	h, err := compose.Start(rt, compose.Pipe2(limit, work), func(j job) {
		mu.Lock()
		defer mu.Unlock()
		seen[j.V/2]++
	})
	require.NoError(t, err)
	var ws []*proc
	for _, label := range []string{"a", "b", "c"} {
		ws = append(ws, startWorker(t, node.Addr(), "paced", 64, "", label, 400*time.Millisecond, startsEnv+"="+api.URL))
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
	// b is killed once a third of the items started: it holds tasks at
	// work, which come back as failed attempts, each to start again on a
	// pass of the rate stage.
	deadline := time.Now().Add(20 * time.Second)
	for {
		starts.mu.Lock()
		k := len(starts.at)
		starts.mu.Unlock()
		if k >= n/3 {
			break
		}
		require.True(t, time.Now().Before(deadline), "a third of the items did not start within 20 s")
		time.Sleep(5 * time.Millisecond)
	}
	ws[1].signal(t, syscall.SIGKILL)
	require.NoError(t, <-posted)
	h.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	require.NoError(t, h.Wait(ctx))

	mu.Lock()
	defer mu.Unlock()
	require.Len(t, seen, n, "every item came out")
	for v, k := range seen {
		require.Equal(t, 1, k, "item %d came out once", v)
	}
	starts.mu.Lock()
	total := len(starts.at)
	starts.mu.Unlock()
	require.GreaterOrEqual(t, total, n)
	// The spread of the delay between a task's dispatch and its start
	// (told over HTTP): two tasks handed out a token apart may start
	// closer together, the more so on a loaded machine. Without the pace,
	// the killed worker's 40 tasks would start at once, beyond it.
	const spread = 50 * time.Millisecond
	for _, d := range []time.Duration{10 * time.Millisecond, 100 * time.Millisecond, time.Second} {
		bound := burst + int(per*(d+spread).Seconds())
		got := starts.worst(d)
		t.Logf("most starts in %v: %d (burst + rate·t = %d, with the spread %d)", d, got, burst+int(per*d.Seconds()), bound)
		assert.LessOrEqual(t, got, bound, "starts in a window of %v", d)
	}
	t.Logf("%d items, %d starts (%d again after the kill)", n, total, total-n)
}
