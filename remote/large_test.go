//go:build !race

package remote_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/evolvekit/evolve/remote"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// largeSpec starts the spec of a worker of large items:
// large|master|stage|slots.
const largeSpec = "large|"

// mb5 is the size of the large items: 5 MB.
const mb5 = 5_000_000

// growMark, as an item's first byte, makes its result twice its size.
const growMark = 'G'

// raw is a codec of byte slices, as they are: a large item crosses the
// wire as its own bytes.
type raw struct{}

func (raw) Append(dst []byte, v any) ([]byte, error) {
	b, ok := v.(*[]byte)
	if !ok {
		return nil, fmt.Errorf("raw: %T is not *[]byte", v)
	}
	return append(dst, *b...), nil
}

func (raw) Decode(data []byte, v any) error {
	b, ok := v.(*[]byte)
	if !ok {
		return fmt.Errorf("raw: %T is not *[]byte", v)
	}
	*b = append((*b)[:0], data...)
	return nil
}

// flip is the large workers' work: every byte of in inverted, twice over
// for an item marked to grow.
func flip(in []byte) []byte {
	n := len(in)
	if n > 0 && in[0] == growMark {
		n *= 2
	}
	out := make([]byte, n)
	for i := range out {
		out[i] = ^in[i%len(in)]
	}
	return out
}

// runLarge is the main of a worker of large items.
func runLarge(spec string) int {
	f := strings.Split(spec, "|")
	if len(f) != 3 {
		fmt.Fprintln(os.Stderr, "bad large worker spec", spec)
		return 2
	}
	slots, _ := strconv.Atoi(f[2])
	fmt.Println("ready")
	err := remote.Work(context.Background(), remote.WorkerConfig{Master: f[0], Stage: f[1], Slots: slots, Codec: raw{}},
		func(_ context.Context, in []byte) ([]byte, error) { return flip(in), nil })
	if err != nil {
		fmt.Println("error:", err)
		return 1
	}
	return 0
}

// blob returns an item of n bytes that tells item seq from the others.
func blob(seq, n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7 + seq)
	}
	return b
}

// largeRun posts items to a stage of large items on a node bounded by
// maxMessage, worked on by one worker process of slots slots, and returns
// the results by Seq once they are all in.
func largeRun(t *testing.T, maxMessage, slots int, items [][]byte) map[uint64]remote.Result[[]byte] {
	t.Helper()
	node, err := remote.Listen(remote.NodeConfig{MaxMessage: maxMessage})
	require.NoError(t, err)
	_, rt := nodeAndRuntime(t)
	t.Cleanup(func() { assert.NoError(t, node.Close()) })
	got := make(chan remote.Result[[]byte], len(items))
	h, err := remote.New(rt, remote.Config[[]byte]{Node: node, Name: "large", Codec: raw{}, Unordered: true},
		func(r remote.Result[[]byte]) { got <- r })
	require.NoError(t, err)
	w := startProc(t, "large", []string{workerEnv + "=" + largeSpec + strings.Join([]string{node.Addr(), "large", strconv.Itoa(slots)}, "|")})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, it := range items {
		require.NoError(t, h.Post(ctx, it))
	}
	h.Close()
	// Wait's error is the first item's that failed: the tests check each.
	_ = h.Wait(ctx)
	close(got)
	out := map[uint64]remote.Result[[]byte]{}
	for r := range got {
		_, dup := out[r.Seq]
		require.False(t, dup, "item %d emitted twice", r.Seq)
		out[r.Seq] = r
	}
	require.Len(t, out, len(items))
	require.NoError(t, w.wait(t, 30*time.Second))
	return out
}

// checkFlipped checks that the result of item seq is items[seq] flipped.
func checkFlipped(t *testing.T, items [][]byte, out map[uint64]remote.Result[[]byte], seq int) {
	t.Helper()
	r := out[uint64(seq)]
	require.NoError(t, r.Err, "item %d", seq)
	require.Len(t, r.Value, len(items[seq]), "item %d", seq)
	require.True(t, string(r.Value) == string(flip(items[seq])), "item %d's result is not its bytes flipped", seq)
}

// A 5 MB item goes through a remote stage, over gRPC's default limit of 4
// MB, and its 5 MB result comes back.
func TestALargeItemGoesThroughAndItsResultBack(t *testing.T) {
	items := [][]byte{blob(0, mb5)}
	out := largeRun(t, 0, 1, items)
	checkFlipped(t, items, out, 0)
}

// Large items handed to a worker with room for several go in several
// messages, each within the bound (16 MiB: three tasks of 5 MB at most),
// and so do their results: none is lost to a message over it.
func TestLargeItemsAreBatchedByBytes(t *testing.T) {
	items := make([][]byte, 8)
	for i := range items {
		items[i] = blob(i, mb5)
	}
	out := largeRun(t, 16<<20, 4, items)
	for i := range items {
		checkFlipped(t, items, out, i)
	}
}

// An item too large for a message fails, naming its Seq, its size and the
// bound, as does an item whose result is too large; the others go through.
func TestItemsTooLargeForAMessageFailAlone(t *testing.T) {
	grow := blob(3, mb5)
	grow[0] = growMark
	items := [][]byte{blob(0, mb5), blob(1, 9_000_000), blob(2, mb5), grow}
	out := largeRun(t, 8<<20, 2, items)
	checkFlipped(t, items, out, 0)
	checkFlipped(t, items, out, 2)
	room := 8<<20 - 64<<10 - 96
	err := out[1].Err
	require.ErrorIs(t, err, remote.ErrTooLarge)
	assert.Contains(t, err.Error(), "the item 1 is 9000000 bytes encoded, over the "+strconv.Itoa(room)+" bytes")
	err = out[3].Err
	var we *remote.WorkError
	require.True(t, errors.As(err, &we), "the result too large fails on the worker: %v", err)
	assert.Contains(t, we.Text, "the result of item 3 is 10000000 bytes encoded, over the "+strconv.Itoa(room)+" bytes")
}
