package remote_test

import (
	"context"
	"net"
	"os"
	"testing"
	"time"

	"github.com/evolvekit/evolve/remote"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

// The tests start real worker processes: the test binary runs itself again
// with workerEnv set, and asWorker then makes it a worker (process_test.go)
// instead of running the tests.
const workerEnv = "EVOLVE_REMOTE_TEST_WORKER"

// asWorker runs the process as a test worker, when the tests that start
// workers are built.
var asWorker func(spec string) int

// masterEnv and asMaster do the same for a master in a process of its own
// (live_test.go).
const masterEnv = "EVOLVE_REMOTE_TEST_MASTER"

var asMaster func(spec string) int

func TestMain(m *testing.M) {
	if spec := os.Getenv(workerEnv); spec != "" && asWorker != nil {
		os.Exit(asWorker(spec))
	}
	if spec := os.Getenv(masterEnv); spec != "" && asMaster != nil {
		os.Exit(asMaster(spec))
	}
	goleak.VerifyTestMain(m)
}

func TestUnreachableMasterIsNamedQuickly(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	start := time.Now()
	err = remote.Work(context.Background(), remote.WorkerConfig{Master: addr}, func(context.Context, int) (int, error) { return 0, nil })
	require.ErrorIs(t, err, remote.ErrUnreachable)
	assert.Contains(t, err.Error(), addr)
	assert.Less(t, time.Since(start), 5*time.Second)
}
