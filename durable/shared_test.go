package durable_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/buffer"
	"github.com/evolvekit/evolve/compose"
	"github.com/evolvekit/evolve/durable"
	"github.com/evolvekit/evolve/parallel"
)

func init() {
	children["share"] = func(args []string) error { return runShare(args[0], args[1], args[2]) }
}

// runShare runs a share of the shared-queue test's chain on the queue at
// url until it is empty, writing each batch's keys to a file in sink named
// after who.
func runShare(url, sink, who string) error {
	q, err := durable.Open[int](durable.Server{URL: url}, durable.Config{})
	if err != nil {
		return err
	}
	defer q.Close()
	fmt.Println("bound 0")
	return shareChain(q, sink, who)
}

// shareChain runs parallel -> buffer on q until it is empty; each batch
// becomes a file in sink named after who.
func shareChain(q *durable.Queue[int], sink, who string) error {
	ctx := context.Background()
	rt := agent.NewRuntime()
	defer rt.Shutdown(ctx)
	work, err := parallel.Stage(parallel.Config{Limit: 4}, durable.Map(func(ctx context.Context, v int) (int, error) {
		select { // a little work, so that both processes get a share
		case <-time.After(100 * time.Microsecond):
		case <-ctx.Done():
		}
		return v, nil
	}))
	if err != nil {
		return err
	}
	batches, err := buffer.Stage(buffer.Config[durable.Item[int]]{Size: 50, MaxWait: 10 * time.Millisecond}, nil)
	if err != nil {
		return err
	}
	n := 0
	chain, err := compose.Start(rt, compose.Pipe2(work, batches), durable.Batches(q, func(b []durable.Item[int]) error {
		n++
		return writeKeys(filepath.Join(sink, fmt.Sprintf("%s-%06d", who, n)), b, false)
	}))
	if err != nil {
		return err
	}
	return durable.Consume(ctx, q, chain, durable.WithUntilEmpty())
}

// TestProcessesShareAQueue runs the same chain in this process, on an
// embedded queue that listens on the loopback, and in a child process
// that reaches it at its URL, on 5,000 items: each item reaches one sink
// once, and each process takes a share.
//
// The queue, its dead letters and its dedupe window are shared; the chain
// is each process's own: its Limit, its Bound, a rate stage's bucket (two
// processes at 100 a second make 200 a second at the API).
func TestProcessesShareAQueue(t *testing.T) {
	const items = 5000
	ctx := context.Background()
	sink := t.TempDir()
	q, err := durable.Open[int](durable.Embedded{Dir: t.TempDir(), Listen: "127.0.0.1:0"}, durable.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	if !strings.HasPrefix(q.URL(), "nats://127.0.0.1:") {
		t.Fatalf("URL = %q; want one on the loopback", q.URL())
	}
	entries := keyed(items)
	if err := q.AddMany(ctx, entries); err != nil {
		t.Fatal(err)
	}
	other := startChild(t, "share", q.URL(), sink, "other")
	if _, err := other.bound(); err != nil {
		t.Fatal(err)
	}
	if err := shareChain(q, sink, "this"); err != nil {
		t.Fatal(err)
	}
	if err := other.wait(time.Minute); err != nil {
		t.Fatalf("the other process: %v", err)
	}
	count := map[string]int{}
	by := map[string]int{}
	files, err := filepath.Glob(filepath.Join(sink, "*.keys"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		who := strings.SplitN(filepath.Base(f), "-", 2)[0]
		for _, k := range strings.Fields(string(data)) {
			count[k]++
			by[who]++
		}
	}
	for i := range items {
		if c := count["k"+strconv.Itoa(i)]; c != 1 {
			t.Errorf("item k%d reached the sinks %d times", i, c)
		}
	}
	if by["this"] == 0 || by["other"] == 0 {
		t.Errorf("this process took %d items and the other %d: both should take a share", by["this"], by["other"])
	}
	if n, err := q.Len(ctx); err != nil || n != 0 {
		t.Errorf("Len = %d, %v; want 0", n, err)
	}
	t.Logf("%d items: %d in this process, %d in the other", items, by["this"], by["other"])
}
