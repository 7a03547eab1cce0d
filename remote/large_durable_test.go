//go:build !race

package remote_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/evolvekit/evolve/compose"
	"github.com/evolvekit/evolve/durable"
	"github.com/evolvekit/evolve/remote"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// queueWorkerEnv, set to master|stage, makes the test binary a worker of
// queued items (runQueueWorker) as it starts, before TestMain.
const queueWorkerEnv = "EVOLVE_REMOTE_TEST_QUEUE_WORKER"

func init() {
	if spec := os.Getenv(queueWorkerEnv); spec != "" {
		os.Exit(runQueueWorker(spec))
	}
}

// digested is what a worker of queued items makes of an item's bytes: their
// SHA-256 as the worker read them, and the bytes inverted.
type digested struct {
	Sum     string
	Flipped []byte
}

// sha returns the SHA-256 of b, in hex.
func sha(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// digest is the work of a worker of queued items.
func digest(_ context.Context, in []byte) (digested, error) {
	out := make([]byte, len(in))
	for i, c := range in {
		out[i] = ^c
	}
	return digested{Sum: sha(in), Flipped: out}, nil
}

// runQueueWorker is the main of a worker of queued items: one slot, the
// work lifted to items with durable.Map, as a master that consumes a
// durable queue needs.
func runQueueWorker(spec string) int {
	f := strings.Split(spec, "|")
	if len(f) != 2 {
		fmt.Fprintln(os.Stderr, "bad queue worker spec", spec)
		return 2
	}
	fmt.Println("ready")
	err := remote.Work(context.Background(), remote.WorkerConfig{Master: f[0], Stage: f[1], Slots: 1}, durable.Map(digest))
	if err != nil {
		fmt.Println("error:", err)
		return 1
	}
	return 0
}

// payloads returns the names of the objects the queue of name stores apart,
// read through a NATS client of its server at url: none if it has no
// bucket yet.
func payloads(url, name string) ([]string, error) {
	nc, err := nats.Connect(url)
	if err != nil {
		return nil, err
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	obs, err := js.ObjectStore(ctx, name+"_payloads")
	if errors.Is(err, jetstream.ErrBucketNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	infos, err := obs.List(ctx)
	if errors.Is(err, jetstream.ErrNoObjectsFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []string
	for _, info := range infos {
		out = append(out, info.Name)
	}
	return out, nil
}

// mustPayloads is payloads, failing t on an error.
func mustPayloads(t *testing.T, url, name string) []string {
	t.Helper()
	out, err := payloads(url, name)
	require.NoError(t, err)
	return out
}

// objectName reports whether name is that of an object of key's item: it
// starts with the first 128 bits of the key's SHA-256, in hex.
func objectName(name, key string) bool {
	h := sha256.Sum256([]byte(key))
	return strings.HasPrefix(name, hex.EncodeToString(h[:16])+"_")
}

// A 5 MB item of a durable queue, stored apart in the queue's Object Store,
// goes through a chain whose remote stage runs on a worker process, and
// reaches the sink once and whole: the worker read the bytes the test
// added, and the sink gets them back. Its object is in the bucket until the
// sink has it, and gone once its acknowledgement is in.
func TestALargeQueuedItemGoesThroughAWorkerProcess(t *testing.T) {
	const name, key = "scans", "scan-17"
	data := make([]byte, mb5)
	r := rand.New(rand.NewPCG(17, 5))
	for i := range data {
		data[i] = byte(r.Uint32())
	}
	want := sha(data)

	q, err := durable.Open[[]byte](durable.Embedded{Dir: t.TempDir(), Listen: "127.0.0.1:0"}, durable.Config{Name: name})
	require.NoError(t, err)
	defer func() { assert.NoError(t, q.Close()) }()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	require.NoError(t, q.Add(ctx, key, data))
	stored := mustPayloads(t, q.URL(), name)
	require.Len(t, stored, 1, "the item is stored apart")
	require.True(t, objectName(stored[0], key), "object %s is not named after key %s", stored[0], key)

	node, rt := nodeAndRuntime(t)
	stage, err := remote.Stage[durable.Item[[]byte], durable.Item[digested]](remote.Config[durable.Item[[]byte]]{Node: node, Name: "digest"})
	require.NoError(t, err)
	var mu sync.Mutex
	var got []durable.Item[digested]
	var heldThen []string // the bucket's objects as the sink had the item
	var heldErr error
	chain, err := compose.Start(rt, stage, durable.Sink(q, func(it durable.Item[digested]) error {
		held, err := payloads(q.URL(), name)
		mu.Lock()
		defer mu.Unlock()
		got = append(got, it)
		heldThen, heldErr = held, err
		return nil
	}), compose.WithDeadLetters(q.DeadLetters))
	require.NoError(t, err)
	w := startProc(t, "queue", []string{queueWorkerEnv + "=" + node.Addr() + "|digest"})
	require.NoError(t, durable.Consume(ctx, q, chain, durable.WithUntilEmpty()))
	require.NoError(t, w.wait(t, 30*time.Second), "the worker ends with the stage")

	mu.Lock()
	defer mu.Unlock()
	require.Len(t, got, 1, "the item reaches the sink once")
	it := got[0]
	assert.Equal(t, key, it.Key)
	assert.Equal(t, want, it.Value.Sum, "the worker read the item's bytes")
	require.Len(t, it.Value.Flipped, mb5)
	back := make([]byte, len(it.Value.Flipped))
	for i, c := range it.Value.Flipped {
		back[i] = ^c
	}
	assert.True(t, bytes.Equal(data, back), "the sink has the item's bytes back, byte for byte")
	require.NoError(t, heldErr)
	assert.Equal(t, stored, heldThen, "the object stays until the item is acknowledged")
	assert.Empty(t, mustPayloads(t, q.URL(), name), "the object is gone once the acknowledgement is in")
	n, err := q.Len(ctx)
	require.NoError(t, err)
	assert.Zero(t, n, "the queue is empty")
	dead, err := q.DeadLen(ctx)
	require.NoError(t, err)
	assert.Zero(t, dead, "no dead letters")
}
