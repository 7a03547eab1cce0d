//go:build !race

package remote_test

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/remote"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// moverSpec starts the spec of a worker process that runs runMover's work.
const moverSpec = "move|"

// trip is the state of an item of the move tests: its number, the step
// its work is at, and the labels of the workers that did each step.
type trip struct {
	N     int
	Step  int
	Trail []string
}

// runMover is the main of a worker process whose spec is
// master|stage|slots|tags|label|mode: step 0 of an item moves it to tag
// "x" with its state; step 1 finishes it, but on a worker of mode "hang",
// which says "holding N" and waits for its end.
func runMover(spec string) int {
	f := strings.Split(spec, "|")
	if len(f) != 6 {
		fmt.Fprintln(os.Stderr, "bad mover spec", spec)
		return 2
	}
	slots, _ := strconv.Atoi(f[2])
	label, hang := f[4], f[5] == "hang"
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	cfg := workerOptions(remote.WorkerConfig{Master: f[0], Stage: f[1], Slots: slots, Tags: strings.Split(f[3], ",")})
	fmt.Println("ready")
	err := remote.Work(ctx, cfg, func(ctx context.Context, s trip) (trip, error) {
		s.Trail = append(s.Trail, label)
		if s.Step == 0 {
			return trip{}, remote.Move("x", trip{N: s.N, Step: 1, Trail: s.Trail})
		}
		if s.Step == 3 || s.Step == 4 { // the benchmark's: no trail kept
			return trip{N: s.N}, nil
		}
		if hang {
			fmt.Println("holding", s.N)
			<-ctx.Done()
			return trip{}, ctx.Err()
		}
		return trip{N: 10 * s.N, Step: 2, Trail: s.Trail}, nil
	})
	if err != nil {
		fmt.Println("error:", err)
		return 1
	}
	return 0
}

// startMover runs a mover process for the stage at addr.
func startMover(t testing.TB, addr, stage, tags, label, mode string) *proc {
	t.Helper()
	spec := moverSpec + strings.Join([]string{addr, stage, "2", tags, label, mode}, "|")
	return startProc(t, label, []string{workerEnv + "=" + spec})
}

// moveMaster starts a master of trips whose items need tag "a", and
// returns its node, handle and results.
func moveMaster(t *testing.T, stage string) (*remote.Node, agent.Handle[trip, remote.Status], chan remote.Result[trip]) {
	t.Helper()
	node, rt := nodeAndRuntime(t)
	results := make(chan remote.Result[trip], 64)
	h, err := remote.New[trip, trip](rt, remote.Config[trip]{Node: node, Name: stage, Tag: func(trip) string { return "a" }},
		func(r remote.Result[trip]) { results <- r })
	require.NoError(t, err)
	return node, h, results
}

// addrs returns the address of each registered worker, by its first tag.
func addrs(t *testing.T, h agent.Handle[trip, remote.Status]) map[string]string {
	t.Helper()
	st, err := h.Status(context.Background())
	require.NoError(t, err)
	out := map[string]string{}
	for _, w := range st.Workers {
		out[w.Tags[0]] = w.Addr
	}
	return out
}

// awaitWorkers waits until n workers registered with h.
func awaitWorkers(t *testing.T, h agent.Handle[trip, remote.Status], n int) {
	t.Helper()
	require.Eventually(t, func() bool {
		st, err := h.Status(context.Background())
		return err == nil && len(st.Workers) == n
	}, 20*time.Second, 5*time.Millisecond, "%d workers register", n)
}

// result waits for the next result, within a generous time.
func result(t *testing.T, results chan remote.Result[trip]) remote.Result[trip] {
	t.Helper()
	select {
	case r := <-results:
		return r
	case <-time.After(30 * time.Second):
		t.Fatal("no result within 30s")
		return remote.Result[trip]{}
	}
}

func TestMoveGoesToAWorkerWithTheTag(t *testing.T) {
	node, h, results := moveMaster(t, "moves")
	startMover(t, node.Addr(), "moves", "a", "w1", "")
	startMover(t, node.Addr(), "moves", "x", "w2", "")
	awaitWorkers(t, h, 2)
	at := addrs(t, h)
	const n = 20
	for i := range n {
		require.NoError(t, h.Post(context.Background(), trip{N: i}))
	}
	for i := range n {
		r := result(t, results)
		require.NoError(t, r.Err)
		require.Equal(t, uint64(i), r.Seq, "in input order")
		assert.Equal(t, trip{N: 10 * i, Step: 2, Trail: []string{"w1", "w2"}}, r.Value, "the second step went on from the first's state")
		require.Len(t, r.Path, 2)
		assert.Equal(t, "a", r.Path[0].Tag)
		assert.Equal(t, at["a"], r.Path[0].Worker)
		assert.Equal(t, "x", r.Path[1].Tag)
		assert.Equal(t, at["x"], r.Path[1].Worker)
	}
	h.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	require.NoError(t, h.Wait(ctx))
	st, err := h.Status(ctx)
	require.NoError(t, err)
	assert.Equal(t, n, st.Moves)
	assert.Zero(t, st.Retried+st.Requeued, "a move spends no attempt and is no requeue")
}

func TestMoveGoesOnAtOnceOnAWorkerWithTheTag(t *testing.T) {
	node, h, results := moveMaster(t, "local")
	startMover(t, node.Addr(), "local", "a,x", "w1", "")
	awaitWorkers(t, h, 1)
	at := addrs(t, h)
	require.NoError(t, h.Post(context.Background(), trip{N: 3}))
	r := result(t, results)
	require.NoError(t, r.Err)
	assert.Equal(t, trip{N: 30, Step: 2, Trail: []string{"w1", "w1"}}, r.Value)
	require.Len(t, r.Path, 2, "the hop is in the path")
	assert.Equal(t, []string{"a", "x"}, []string{r.Path[0].Tag, r.Path[1].Tag})
	assert.Equal(t, at["a"], r.Path[1].Worker)
	st, err := h.Status(context.Background())
	require.NoError(t, err)
	assert.Equal(t, 1, st.Moves)
	assert.Zero(t, st.Queued)
}

func TestMovedItemGoesOnWithItsStateWhenItsWorkerIsKilled(t *testing.T) {
	node, h, results := moveMaster(t, "killed")
	startMover(t, node.Addr(), "killed", "a", "w1", "")
	w2 := startMover(t, node.Addr(), "killed", "x", "w2", "hang")
	awaitWorkers(t, h, 2)
	require.NoError(t, h.Post(context.Background(), trip{N: 7}))
	w2.await(t, "holding 7", 30*time.Second)
	w2.signal(t, syscall.SIGKILL)
	startMover(t, node.Addr(), "killed", "x", "w3", "")
	r := result(t, results)
	require.NoError(t, r.Err)
	assert.Equal(t, trip{N: 70, Step: 2, Trail: []string{"w1", "w3"}}, r.Value,
		"w3 went on from the state w1 moved, not from the item's first input")
	require.Len(t, r.Path, 2)
	assert.Equal(t, "x", r.Path[1].Tag)
	st, err := h.Status(context.Background())
	require.NoError(t, err)
	assert.Equal(t, 1, st.Moves)
	assert.Equal(t, 1, st.Requeued, "the killed worker's attempt is taken back")
}
