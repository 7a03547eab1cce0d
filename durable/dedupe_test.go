package durable_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/buffer"
	"github.com/evolvekit/evolve/compose"
	"github.com/evolvekit/evolve/durable"
	"github.com/evolvekit/evolve/parallel"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go/jetstream"
)

func init() {
	children["producer"] = func(args []string) error { return runProducer(args[0], args[1], args[2]) }
}

// dedupeWindow is the dedupe window of the tests of this file: far
// longer than any of them takes.
const dedupeWindow = 10 * time.Minute

// consumeAll runs a chain on q until it is empty, and returns how many
// times each key reached its sink.
func consumeAll(t *testing.T, q *durable.Queue[int]) map[string]int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rt := agent.NewRuntime()
	defer rt.Shutdown(ctx)
	var mu sync.Mutex
	seen := map[string]int{}
	chain, err := compose.Start(rt, compose.Pipe2(mustParallel(t, parallel.Config{Limit: 4}, durable.Map(func(_ context.Context, v int) (int, error) { return v, nil })),
		mustBufferOf[int](t, 50)), durable.Batches(q, func(b []durable.Item[int]) error {
		mu.Lock()
		defer mu.Unlock()
		for _, it := range b {
			seen[it.Key]++
		}
		return nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	if err := durable.Consume(ctx, q, chain, durable.WithUntilEmpty()); err != nil {
		t.Fatal(err)
	}
	return seen
}

// mustBufferOf returns a buffer stage of batches of size of items of T.
func mustBufferOf[T any](t *testing.T, size int) agent.Stage[durable.Item[T], []durable.Item[T]] {
	t.Helper()
	s, err := buffer.Stage(buffer.Config[durable.Item[T]]{Size: size, MaxWait: 5 * time.Millisecond}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// addAgain adds entries to q again, and checks that q then holds want
// items.
func addAgain(t *testing.T, q *durable.Queue[int], entries []durable.Entry[int], want int, when string) {
	t.Helper()
	ctx := context.Background()
	// A queue whose server restarted reconnects a moment later: until it
	// has, adding fails, and is tried again, as a producer would.
	deadline := time.Now().Add(10 * time.Second)
	for {
		err := q.AddMany(ctx, entries)
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: AddMany: %v", when, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := q.Add(ctx, entries[0].Key, entries[0].Value); err != nil {
		t.Fatalf("%s: Add: %v", when, err)
	}
	if n, err := q.Len(ctx); err != nil || n != want {
		t.Errorf("%s, adding the %d keys again: Len = %d, %v; want %d", when, len(entries), n, err, want)
	}
}

// TestDedupeSurvivesACleanClose adds 100 keys to an embedded queue and
// consumes them; the same keys added again, in the same process and then
// after the queue was closed and opened again on its directory, add
// nothing, and a new key still adds one item.
func TestDedupeSurvivesACleanClose(t *testing.T) {
	dir := t.TempDir()
	cfg := durable.Config{Dedupe: dedupeWindow}
	q, err := durable.Open[int](durable.Embedded{Dir: dir}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	entries := keyed(100)
	fill(context.Background(), t, q, 100)
	if seen := consumeAll(t, q); len(seen) != 100 {
		t.Fatalf("the first run consumed %d keys; want 100", len(seen))
	}
	addAgain(t, q, entries, 0, "in the same process")
	if err := q.Close(); err != nil {
		t.Fatal(err)
	}
	q, err = durable.Open[int](durable.Embedded{Dir: dir}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	addAgain(t, q, entries, 0, "after a clean close")
	if seen := consumeAll(t, q); len(seen) != 0 {
		t.Errorf("after a clean close, %d keys were consumed a second time", len(seen))
	}
	if err := q.Add(context.Background(), "new", 1); err != nil {
		t.Fatal(err)
	}
	if n, err := q.Len(context.Background()); err != nil || n != 1 {
		t.Errorf("a new key: Len = %d, %v; want 1", n, err)
	}
}

// TestDedupeSurvivesAServerRestart adds 100 keys to a queue on a NATS
// server at a URL and consumes them, then restarts the server on the same
// store and port: the same keys added again, by the queue that stayed
// open (its connection comes back) and by one opened anew, add nothing.
func TestDedupeSurvivesAServerRestart(t *testing.T) {
	store := t.TempDir()
	srv := serverAt(t, store, -1)
	url, port := srv.ClientURL(), srv.Addr().(*net.TCPAddr).Port
	cfg := durable.Config{Dedupe: dedupeWindow}
	q, err := durable.Open[int](durable.Server{URL: url}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	entries := keyed(100)
	fill(context.Background(), t, q, 100)
	if seen := consumeAll(t, q); len(seen) != 100 {
		t.Fatalf("the first run consumed %d keys; want 100", len(seen))
	}
	srv.Shutdown()
	srv.WaitForShutdown()
	serverAt(t, store, port)
	addAgain(t, q, entries, 0, "after a server restart, on the queue that stayed open")
	q2, err := durable.Open[int](durable.Server{URL: url}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer q2.Close()
	addAgain(t, q2, entries, 0, "after a server restart, on a queue opened anew")
	if seen := consumeAll(t, q2); len(seen) != 0 {
		t.Errorf("after a server restart, %d keys were consumed a second time", len(seen))
	}
}

// serverAt starts a NATS server with JetStream in the test process, on
// 127.0.0.1 at port (-1 for a free one), keeping its store in store, and
// stops it when the test ends.
func serverAt(t *testing.T, store string, port int) *server.Server {
	t.Helper()
	srv, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: port, JetStream: true, StoreDir: store, NoLog: true, NoSigs: true})
	if err != nil {
		t.Fatal(err)
	}
	srv.Start()
	t.Cleanup(func() {
		srv.Shutdown()
		srv.WaitForShutdown()
	})
	if !srv.ReadyForConnections(10 * time.Second) {
		t.Fatal("the server did not start")
	}
	return srv
}

// The producer test: producerKeys keys, added in chunks of producerChunk
// by a process that consumes them meanwhile, killed producerKills times
// inside AddMany.
const (
	producerKeys  = 12_000
	producerChunk = 100
	producerKills = 6
)

// runProducer is a producer process of TestDedupeSurvivesKillsInsideAddMany:
// it opens the queue in dir, runs a chain on it whose sink writes each
// batch's keys to a file in sink named after run, adds every key, a chunk
// at a time at the pace of the chain, notes in sink that it added them
// all, and ends once the queue is empty.
func runProducer(dir, sink, run string) error {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	q, err := durable.Open[int](durable.Embedded{Dir: dir}, durable.Config{Dedupe: dedupeWindow})
	if err != nil {
		return err
	}
	defer q.Close()
	rt := agent.NewRuntime()
	defer rt.Shutdown(context.Background())
	work, err := parallel.Stage(parallel.Config{Limit: 4}, durable.Map(func(_ context.Context, v int) (int, error) { return 2 * v, nil }))
	if err != nil {
		return err
	}
	batches, err := buffer.Stage(buffer.Config[durable.Item[int]]{Size: killBatch, MaxWait: 5 * time.Millisecond}, nil)
	if err != nil {
		return err
	}
	n := 0
	chain, err := compose.Start(rt, compose.Pipe2(work, batches), durable.Batches(q, func(b []durable.Item[int]) error {
		n++
		return writeKeys(filepath.Join(sink, fmt.Sprintf("run%s-%06d", run, n)), b, true)
	}))
	if err != nil {
		return err
	}
	st, err := chain.Status(ctx)
	if err != nil {
		return err
	}
	fmt.Println("bound", st.Bound)
	consumed := make(chan error, 1)
	go func() { consumed <- durable.Consume(ctx, q, chain) }()
	entries := keyed(producerKeys)
	for i := 0; i < len(entries); i += producerChunk {
		if err := q.AddMany(ctx, entries[i:min(i+producerChunk, len(entries))]); err != nil {
			return err
		}
		// Adding keeps pace with the chain, so that a kill while adding
		// comes after it consumed a share of the keys.
		for {
			n, err := q.Len(ctx)
			if err != nil {
				return err
			}
			if n <= 2*producerChunk {
				break
			}
			time.Sleep(time.Millisecond)
		}
	}
	if err := os.WriteFile(filepath.Join(sink, "added"+run), nil, 0o644); err != nil {
		return err
	}
	for {
		if n, err := q.Len(ctx); err != nil || n == 0 {
			cancel()
			return <-consumed
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestDedupeSurvivesKillsInsideAddMany runs a producer process that adds
// 12,000 keys to an embedded queue, 100 at a time, while a chain of its
// own consumes them, and kills it with SIGKILL six times while it adds,
// once its chain has written a share of the keys, starting it again on
// the same directory each time; each run adds every key again. The sink sees every key, and the items it sees
// again after each crash are within the re-work that crash may cost: the
// chain's Bound, a batch in its sink, and one fetch. Without a dedupe
// window that survives the restart, each run would add again what the
// runs before it consumed.
func TestDedupeSurvivesKillsInsideAddMany(t *testing.T) {
	skipUnderRace(t)
	dir, sink := t.TempDir(), t.TempDir()
	r := rand.New(rand.NewPCG(13, 17))
	bound, inside := 0, 0
	for run := range producerKills + 1 {
		c := startChild(t, "producer", dir, sink, strconv.Itoa(run))
		b, err := c.bound()
		if err != nil {
			t.Fatal(err)
		}
		bound = b + killBatch + durable.DefaultFetch
		if run == producerKills {
			if err := c.wait(time.Minute); err != nil {
				t.Fatalf("the last run: %v", err)
			}
			break
		}
		// Kill it once its sink has written a share of the keys no run
		// has written yet, half to all of what is left for each kill to
		// come, while it adds.
		left := producerKeys - len(written(t, sink, run))
		share := max(1, left/killBatch/(producerKills-run+1))
		target := share/2 + 1 + r.IntN(share/2+1)
		deadline := time.Now().Add(time.Minute)
		finished := false
		for !finished && batches(t, sink, run) < target {
			select {
			case err := <-c.done:
				if err != nil {
					t.Fatalf("run %d: %v", run, err)
				}
				finished = true
			default:
			}
			if time.Now().After(deadline) {
				t.Fatalf("run %d wrote %d batches in a minute", run, batches(t, sink, run))
			}
			time.Sleep(time.Millisecond)
		}
		if finished {
			break
		}
		c.kill()
		if _, err := os.Stat(filepath.Join(sink, "added"+strconv.Itoa(run))); err != nil {
			inside++
		}
	}
	if inside < producerKills/2 {
		t.Errorf("only %d of %d kills came while the producer added", inside, producerKills)
	}
	runs := readSink(t, sink, producerKills+1)
	count := map[string]int{}
	total := 0
	for _, keys := range runs {
		total += len(keys)
		for k := range keys {
			count[k]++
		}
	}
	if len(count) != producerKeys {
		t.Errorf("the sink saw %d keys; want %d", len(count), producerKeys)
	}
	most := 0
	for _, c := range count {
		most = max(most, c)
	}
	per := make([]string, len(runs))
	for i, keys := range runs {
		per[i] = strconv.Itoa(len(keys))
	}
	t.Logf("%d keys, %d SIGKILLs (%d while adding): %d items reached the sink (%d again; one key at most %d times), by run: %s; bound after each crash %d",
		producerKeys, producerKills, inside, total, total-len(count), most, strings.Join(per, ", "), bound)
	if again := total - len(count); again > producerKills*bound {
		t.Errorf("%d items reached the sink again after %d crashes; the bound is %d a crash", again, producerKills, bound)
	}
}

// written returns the keys the runs before run wrote to sink.
func written(t *testing.T, sink string, run int) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	for _, keys := range readSink(t, sink, run) {
		for k := range keys {
			out[k] = true
		}
	}
	return out
}

// TestAQueueMadeBeforeMarkersIsMigrated opens a queue whose stream was
// made as earlier versions made it, with items in it: Open gives the
// stream the subjects of key markers and TTLs; its items are consumed
// once; after a server restart, adding their keys again adds nothing;
// and the stream's earlier configuration can no longer be put back, so
// that an earlier version refuses to open the queue rather than losing
// its markers' TTLs.
func TestAQueueMadeBeforeMarkersIsMigrated(t *testing.T) {
	ctx := context.Background()
	store := t.TempDir()
	srv := serverAt(t, store, -1)
	url, port := srv.ClientURL(), srv.Addr().(*net.TCPAddr).Port
	js := jetStream(t, url)
	old := jetstream.StreamConfig{Name: "old", Subjects: []string{"old.items"}, Retention: jetstream.WorkQueuePolicy,
		Storage: jetstream.FileStorage, Duplicates: dedupeWindow}
	if _, err := js.CreateStream(ctx, old); err != nil {
		t.Fatal(err)
	}
	entries := keyed(50)
	for _, e := range entries {
		if _, err := js.Publish(ctx, "old.items", []byte(strconv.Itoa(e.Value)), jetstream.WithMsgID(e.Key)); err != nil {
			t.Fatal(err)
		}
	}
	cfg := durable.Config{Name: "old", Dedupe: dedupeWindow}
	q, err := durable.Open[int](durable.Server{URL: url}, cfg)
	if err != nil {
		t.Fatalf("Open on a stream made before markers: %v", err)
	}
	defer q.Close()
	if n, err := q.Len(ctx); err != nil || n != 50 {
		t.Fatalf("Len = %d, %v; want the 50 items added before", n, err)
	}
	if seen := consumeAll(t, q); len(seen) != 50 {
		t.Fatalf("consumed %d keys; want 50", len(seen))
	}
	if _, err := js.UpdateStream(ctx, old); err == nil || !strings.Contains(err.Error(), "TTL") {
		t.Errorf("putting the earlier configuration back = %v; want the server's refusal to turn TTLs off", err)
	}
	srv.Shutdown()
	srv.WaitForShutdown()
	serverAt(t, store, port)
	q2, err := durable.Open[int](durable.Server{URL: url}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer q2.Close()
	addAgain(t, q2, entries, 0, "after the migration and a server restart")
}

// TestKeysEndWithTheWindow consumes 20 keys of a queue whose dedupe
// window is a second, with fair keys (markers) and without (the items
// kept until the window ends): once the window has passed, the stream
// holds nothing, and the same keys add 20 items again.
func TestKeysEndWithTheWindow(t *testing.T) {
	for _, fair := range []bool{false, true} {
		t.Run(fmt.Sprintf("fair-%v", fair), func(t *testing.T) {
			ctx := context.Background()
			srv := startServer(t, server.Options{})
			cfg := durable.Config{Dedupe: time.Second}
			if fair {
				cfg.Key = func(string) string { return "one" }
			}
			q, err := durable.Open[int](durable.Server{URL: srv.ClientURL()}, cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer q.Close()
			added := time.Now()
			fill(ctx, t, q, 20)
			if seen := consumeAll(t, q); len(seen) != 20 {
				t.Fatalf("consumed %d keys; want 20", len(seen))
			}
			stream, err := jetStream(t, srv.ClientURL()).Stream(ctx, durable.DefaultName)
			if err != nil {
				t.Fatal(err)
			}
			deadline := time.Now().Add(10 * time.Second)
			for {
				info, err := stream.Info(ctx)
				if err != nil {
					t.Fatal(err)
				}
				// The server forgets the keys in its memory a moment after
				// the window (it looks every 50 ms at least).
				if info.State.Msgs == 0 && time.Since(added) > time.Second+100*time.Millisecond {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("the stream still holds %d messages 10 s after a window of 1 s", info.State.Msgs)
				}
				time.Sleep(50 * time.Millisecond)
			}
			addAgain(t, q, keyed(20), 20, "once the window has passed")
		})
	}
}

// TestAQueueThatKeepsItsItemsCannotTakeFairKeys opens a queue without
// fair keys, then again with: Open returns an ErrConfig that says why,
// and the queue opens again without them, its item still there.
func TestAQueueThatKeepsItsItemsCannotTakeFairKeys(t *testing.T) {
	ctx := context.Background()
	srv := startServer(t, server.Options{})
	store := durable.Server{URL: srv.ClientURL()}
	q, err := durable.Open[int](store, durable.Config{Name: "plain"})
	if err != nil {
		t.Fatal(err)
	}
	if err := q.Add(ctx, "k", 1); err != nil {
		t.Fatal(err)
	}
	q.Close()
	_, err = durable.Open[int](store, durable.Config{Name: "plain", Key: func(k string) string { return k }})
	if !errors.Is(err, durable.ErrConfig) || !strings.Contains(err.Error(), "cannot take Config.Key") {
		t.Fatalf("Open with fair keys = %v; want an ErrConfig saying the queue cannot take them", err)
	}
	q, err = durable.Open[int](store, durable.Config{Name: "plain"})
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	if n, err := q.Len(ctx); n != 1 || err != nil {
		t.Fatalf("Len = %d, %v; want the one item", n, err)
	}
}
