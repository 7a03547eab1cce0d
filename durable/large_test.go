package durable_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"maps"
	"math/rand/v2"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/compose"
	"github.com/evolvekit/evolve/durable"
	"github.com/evolvekit/evolve/parallel"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go/jetstream"
)

// largeSize is the size of the large items of these tests: five times
// what a message of NATS may carry by default.
const largeSize = 5 << 20

// payload returns n pseudo-random letters of seed.
func payload(seed uint64, n int) string {
	r := rand.New(rand.NewPCG(seed, 3))
	b := make([]byte, n)
	for i := range b {
		b[i] = 'a' + byte(r.IntN(26))
	}
	return string(b)
}

// sum returns the SHA-256 of s, in hex.
func sum(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// objects returns the names of the objects in the bucket of queue name,
// through js: none if it has no bucket.
func objects(t *testing.T, js jetstream.JetStream, name string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	obs, err := js.ObjectStore(ctx, name+"_payloads")
	if errors.Is(err, jetstream.ErrBucketNotFound) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	infos, err := obs.List(ctx)
	if errors.Is(err, jetstream.ErrNoObjectsFound) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, info := range infos {
		out = append(out, info.Name)
	}
	return out
}

// objectOf reports whether names hold an object of the item of key: its
// name starts with the first 128 bits of the key's SHA-256, in hex.
func objectOf(names []string, key string) bool {
	h := sha256.Sum256([]byte(key))
	for _, n := range names {
		if strings.HasPrefix(n, hex.EncodeToString(h[:16])+"_") {
			return true
		}
	}
	return false
}

// largeChain consumes q until it is empty with a chain whose sink calls
// sink with each item, and returns the SHA-256 of each value by key.
func largeChain(t *testing.T, q *durable.Queue[string], sink func(durable.Item[string]) error) map[string]string {
	t.Helper()
	ctx := context.Background()
	rt := agent.NewRuntime()
	defer rt.Shutdown(ctx)
	work, err := parallel.Stage(parallel.Config{Limit: 2}, durable.Map(func(_ context.Context, v string) (string, error) {
		return sum(v), nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	sums := map[string]string{}
	chain, err := compose.Start(rt, work, durable.Sink(q, func(it durable.Item[string]) error {
		if err := sink(it); err != nil {
			return err
		}
		mu.Lock()
		defer mu.Unlock()
		sums[it.Key] = it.Value
		return nil
	}), compose.WithDeadLetters(q.DeadLetters))
	if err != nil {
		t.Fatal(err)
	}
	run, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	if err := durable.Consume(run, q, chain, durable.WithUntilEmpty()); err != nil {
		t.Fatalf("Consume: %v", err)
	}
	return sums
}

// TestALargeItemGoesThroughAChain adds 5 MB items, with Add and AddMany,
// beside small ones, and runs a chain on them, with and without fair
// keys: each comes out whole; its object stays while the chain holds it,
// and through a failure of the sink that hands it back to the queue, for
// a second run; and the bucket is empty once all are acknowledged. An item added again under its key
// leaves no object.
func TestALargeItemGoesThroughAChain(t *testing.T) {
	for _, fair := range []bool{false, true} {
		t.Run(map[bool]string{false: "plain", true: "fair keys"}[fair], func(t *testing.T) {
			ctx := context.Background()
			cfg := durable.Config{Name: "large"}
			if fair {
				cfg.Key = client
			}
			q, err := durable.Open[string](durable.Embedded{Dir: t.TempDir(), Listen: "127.0.0.1:0"}, cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer q.Close()
			js := jetStream(t, q.URL())
			want := map[string]string{"a/big": payload(1, largeSize), "b/big": payload(2, largeSize), "a/small": "small", "b/small": "small too"}
			if err := q.Add(ctx, "a/big", want["a/big"]); err != nil {
				t.Fatal(err)
			}
			var entries []durable.Entry[string]
			for _, k := range []string{"a/small", "b/big", "b/small"} {
				entries = append(entries, durable.Entry[string]{Key: k, Value: want[k]})
			}
			if err := q.AddMany(ctx, entries); err != nil {
				t.Fatal(err)
			}
			if err := q.Add(ctx, "a/big", payload(9, largeSize)); err != nil {
				t.Fatal(err)
			}
			if err := q.AddMany(ctx, entries[1:2]); err != nil {
				t.Fatal(err)
			}
			if n, err := q.Len(ctx); err != nil || n != 4 {
				t.Fatalf("Len = %d, %v; want 4", n, err)
			}
			if names := objects(t, js, "large"); len(names) != 2 {
				t.Fatalf("the bucket holds %d objects; want 2, one an item added once", len(names))
			}

			failed := false
			sink := func(it durable.Item[string]) error {
				if !strings.HasSuffix(it.Key, "/big") {
					return nil
				}
				if !objectOf(objects(t, js, "large"), it.Key) {
					t.Errorf("the object of %s is gone before its acknowledgement", it.Key)
				}
				if it.Key == "b/big" && !failed {
					failed = true
					return errors.New("not this time")
				}
				return nil
			}
			// The item the sink failed goes back to the queue, and comes
			// back in this run or, if the run ended first, in the next.
			sums := map[string]string{}
			for run := 0; len(sums) < len(want) && run < 5; run++ {
				maps.Copy(sums, largeChain(t, q, sink))
			}
			for k, v := range want {
				if sums[k] != sum(v) {
					t.Errorf("item %s came out with SHA-256 %.12s; want %.12s", k, sums[k], sum(v))
				}
			}
			if !failed {
				t.Error("the sink never failed b/big")
			}
			if names := objects(t, js, "large"); len(names) != 0 {
				t.Errorf("the bucket holds %v once every item is acknowledged; want nothing", names)
			}
			if n, err := q.DeadLen(ctx); err != nil || n != 0 {
				t.Errorf("DeadLen = %d, %v; want 0", n, err)
			}
		})
	}
}

func init() {
	children["large"] = func(args []string) error { return runLarge(args[0]) }
}

// runLarge opens the queue in dir and runs a chain on it whose work
// prints the SHA-256 of each item it gets, "got <sum>", and then waits
// for ever.
func runLarge(dir string) error {
	ctx := context.Background()
	q, err := durable.Open[string](durable.Embedded{Dir: dir}, durable.Config{Name: "large"})
	if err != nil {
		return err
	}
	defer q.Close()
	rt := agent.NewRuntime()
	defer rt.Shutdown(ctx)
	var out sync.Mutex
	work, err := parallel.Stage(parallel.Config{Limit: 1}, durable.Map(func(ctx context.Context, v string) (string, error) {
		out.Lock()
		_, err := os.Stdout.WriteString("got " + sum(v) + "\n")
		out.Unlock()
		if err != nil {
			return "", err
		}
		<-ctx.Done()
		return "", ctx.Err()
	}))
	if err != nil {
		return err
	}
	chain, err := compose.Start(rt, work, durable.Sink(q, func(durable.Item[string]) error { return nil }))
	if err != nil {
		return err
	}
	if _, err := os.Stdout.WriteString("bound 0\n"); err != nil {
		return err
	}
	return durable.Consume(ctx, q, chain)
}

// TestALargeItemSurvivesAKill adds a 5 MB item, has a child process take
// it, and kills the child with SIGKILL before it acknowledges: the queue,
// opened again, keeps the item's object, and hands the item out again,
// whole; its object goes with its acknowledgement.
func TestALargeItemSurvivesAKill(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	big := payload(5, largeSize)
	q, err := durable.Open[string](durable.Embedded{Dir: dir}, durable.Config{Name: "large"})
	if err != nil {
		t.Fatal(err)
	}
	if err := q.Add(ctx, "big", big); err != nil {
		t.Fatal(err)
	}
	if err := q.Close(); err != nil {
		t.Fatal(err)
	}

	c := startChild(t, "large", dir)
	lines := make(chan string)
	go func() {
		defer close(lines)
		for c.out.Scan() {
			lines <- c.out.Text()
		}
	}()
	for _, want := range []string{"bound 0", "got " + sum(big)} {
		select {
		case line, ok := <-lines:
			if !ok || line != want {
				t.Fatalf("the child said %q (%v); want %q", line, ok, want)
			}
		case <-time.After(2 * time.Minute):
			t.Fatalf("the child did not say %q within two minutes", want)
		}
	}
	_ = c.cmd.Process.Signal(syscall.SIGKILL)
	for range lines {
	}
	_ = c.cmd.Wait()

	q, err = durable.Open[string](durable.Embedded{Dir: dir, Listen: "127.0.0.1:0"}, durable.Config{Name: "large"})
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	js := jetStream(t, q.URL())
	if !objectOf(objects(t, js, "large"), "big") {
		t.Fatal("the object of the item the child held is gone")
	}
	sums := largeChain(t, q, func(durable.Item[string]) error { return nil })
	if sums["big"] != sum(big) {
		t.Errorf("the item came back with SHA-256 %.12s; want %.12s", sums["big"], sum(big))
	}
	if names := objects(t, js, "large"); len(names) != 0 {
		t.Errorf("the bucket holds %v after the acknowledgement; want nothing", names)
	}
}

// TestABadPayloadGoesToTheDeadLetters stores items apart (a small
// MaxInline), scribbles over one's object and deletes another's: each
// goes to the dead letters with an error naming its object and digest,
// and the scribbled object stays with its dead letter, through Open,
// until the dead letter is deleted; the good item comes through.
func TestABadPayloadGoesToTheDeadLetters(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	store := durable.Embedded{Dir: dir, Listen: "127.0.0.1:0"}
	cfg := durable.Config{Name: "bad", MaxInline: 1024}
	q, err := durable.Open[string](store, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = q.Close() }()
	js := jetStream(t, q.URL())
	for i, k := range []string{"good", "scribbled", "missing"} {
		if err := q.Add(ctx, k, payload(uint64(i), 4096)); err != nil {
			t.Fatal(err)
		}
	}
	obs, err := js.ObjectStore(ctx, "bad_payloads")
	if err != nil {
		t.Fatal(err)
	}
	var scribbled string
	for _, name := range objects(t, js, "bad") {
		switch {
		case objectOf([]string{name}, "scribbled"):
			scribbled = name
			data, err := obs.GetBytes(ctx, name)
			if err != nil {
				t.Fatal(err)
			}
			data[100] ^= 1
			if _, err := obs.PutBytes(ctx, name, data); err != nil {
				t.Fatal(err)
			}
		case objectOf([]string{name}, "missing"):
			if err := obs.Delete(ctx, name); err != nil {
				t.Fatal(err)
			}
		}
	}
	sums := largeChain(t, q, func(durable.Item[string]) error { return nil })
	if len(sums) != 1 || sums["good"] != sum(payload(0, 4096)) {
		t.Errorf("the sink saw %v; want the good item only", sums)
	}
	dead := deadLetters(t, q.URL(), "bad")
	for key, says := range map[string][]string{
		"scribbled": {"digest mismatch", scribbled, "SHA-256 " + sum(`"`+payload(1, 4096)+`"`), "bucket bad_payloads"},
		"missing":   {"payload missing", "SHA-256 " + sum(`"`+payload(2, 4096)+`"`)},
	} {
		m, ok := dead[key]
		if !ok {
			t.Errorf("no dead letter for %s", key)
			continue
		}
		for _, s := range says {
			if !strings.Contains(m.Header.Get("Evolve-Error"), s) {
				t.Errorf("the dead letter of %s says %q; want it to say %q", key, m.Header.Get("Evolve-Error"), s)
			}
		}
		if m.Header.Get("Evolve-Payload") == "" {
			t.Errorf("the dead letter of %s names no object", key)
		}
	}

	// The dead letter keeps its object through a restart, until it is
	// deleted; then the next Open deletes the object.
	for _, deleteDeadLetters := range []bool{false, true} {
		if deleteDeadLetters {
			st, err := js.Stream(ctx, "bad_dead")
			if err != nil {
				t.Fatal(err)
			}
			if err := st.Purge(ctx); err != nil {
				t.Fatal(err)
			}
		}
		if err := q.Close(); err != nil {
			t.Fatal(err)
		}
		if q, err = durable.Open[string](store, cfg); err != nil {
			t.Fatal(err)
		}
		js = jetStream(t, q.URL())
		if kept := objectOf(objects(t, js, "bad"), "scribbled"); kept == deleteDeadLetters {
			t.Errorf("with the dead letters deleted %v, the scribbled object is kept %v", deleteDeadLetters, kept)
		}
	}
}

// TestAnObjectNoMessageNamesIsDeletedAtOpen stores an object as Add
// would, with no message that names it, as a crash between the two
// leaves it: an embedded queue deletes it as it opens again, and keeps
// the object of an item that waits.
func TestAnObjectNoMessageNamesIsDeletedAtOpen(t *testing.T) {
	ctx := context.Background()
	store := durable.Embedded{Dir: t.TempDir(), Listen: "127.0.0.1:0"}
	cfg := durable.Config{Name: "orphans", MaxInline: 1024}
	q, err := durable.Open[string](store, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := q.Add(ctx, "waits", payload(1, 4096)); err != nil {
		t.Fatal(err)
	}
	js := jetStream(t, q.URL())
	obs, err := js.ObjectStore(ctx, "orphans_payloads")
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.Sum256([]byte("orphan"))
	if _, err := obs.PutBytes(ctx, hex.EncodeToString(h[:16])+"_000000000000000000000000", []byte(payload(2, 4096))); err != nil {
		t.Fatal(err)
	}
	if names := objects(t, js, "orphans"); len(names) != 2 {
		t.Fatalf("the bucket holds %v; want two objects", names)
	}
	durable.Crash(q)
	q, err = durable.Open[string](store, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	names := objects(t, jetStream(t, q.URL()), "orphans")
	if len(names) != 1 || !objectOf(names, "waits") {
		t.Errorf("the bucket holds %v after Open; want the object of the item that waits alone", names)
	}
	if sums := largeChain(t, q, func(durable.Item[string]) error { return nil }); sums["waits"] != sum(payload(1, 4096)) {
		t.Errorf("the item that waits came out as %v", sums)
	}
}

// TestAPayloadTheStoreCannotTakeFailsTheAdd adds a 5 MB item to a queue
// whose servers keep 2 MB at most: Add fails saying so, the queue holds
// nothing, and nothing of the item stays in the bucket.
func TestAPayloadTheStoreCannotTakeFailsTheAdd(t *testing.T) {
	ctx := context.Background()
	srv := startServer(t, server.Options{JetStreamMaxStore: 2 << 20})
	q, err := durable.Open[string](durable.Server{URL: srv.ClientURL()}, durable.Config{Name: "full"})
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	add, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	err = q.Add(add, "big", payload(1, largeSize))
	if err == nil || !strings.Contains(err.Error(), "storing the item of key \"big\"") || !strings.Contains(err.Error(), "full_payloads") {
		t.Fatalf("Add = %v; want an error saying the item could not be stored apart", err)
	}
	t.Logf("Add: %v", err)
	if n, err := q.Len(ctx); err != nil || n != 0 {
		t.Errorf("Len = %d, %v; want 0", n, err)
	}
	obs, err := jetStream(t, srv.ClientURL()).ObjectStore(ctx, "full_payloads")
	if err != nil {
		t.Fatal(err)
	}
	st, err := obs.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Size() != 0 {
		t.Errorf("the bucket holds %d bytes; want none", st.Size())
	}
	if err := q.Add(ctx, "small", "fits"); err != nil {
		t.Errorf("a small item after: %v", err)
	}
}

// TestMaxInlineOutOfRange: a MaxInline the servers' messages cannot
// carry, or negative, is an ErrConfig saying so.
func TestMaxInlineOutOfRange(t *testing.T) {
	for _, tc := range []struct {
		inline int
		says   string
	}{{-1, "max inline must not be negative"}, {1 << 20, "leaves the headers no room"}} {
		_, err := durable.Open[string](durable.Embedded{Dir: t.TempDir()}, durable.Config{MaxInline: tc.inline})
		if !errors.Is(err, durable.ErrConfig) || !strings.Contains(err.Error(), tc.says) {
			t.Errorf("MaxInline %d: Open = %v; want an ErrConfig saying %q", tc.inline, err, tc.says)
		}
	}
}

// TestADeadLetterSinkHandlesALargeItem fails every item of a chain whose
// dead-letter sink of its own takes the first and fails the second: the
// object of the first goes once the sink took it; the second, in the
// queue's dead letters, keeps its object.
func TestADeadLetterSinkHandlesALargeItem(t *testing.T) {
	ctx := context.Background()
	q, err := durable.Open[string](durable.Embedded{Dir: t.TempDir(), Listen: "127.0.0.1:0"}, durable.Config{Name: "dls", MaxInline: 1024})
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	js := jetStream(t, q.URL())
	for i, k := range []string{"taken", "refused"} {
		if err := q.Add(ctx, k, payload(uint64(i), 4096)); err != nil {
			t.Fatal(err)
		}
	}
	rt := agent.NewRuntime()
	defer rt.Shutdown(ctx)
	work, err := parallel.Stage(parallel.Config{Limit: 1}, durable.Map(func(context.Context, string) (string, error) {
		return "", errors.New("never")
	}))
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	took := map[string]int{}
	dead := durable.DeadLetterSink(q, func(d agent.DeadLetter) error {
		it := d.Item.(durable.Item[string])
		mu.Lock()
		defer mu.Unlock()
		took[it.Key] = len(it.Value)
		if it.Key == "refused" {
			return errors.New("not mine")
		}
		return nil
	})
	chain, err := compose.Start(rt, work, durable.Sink(q, func(durable.Item[string]) error { return nil }), compose.WithDeadLetters(dead))
	if err != nil {
		t.Fatal(err)
	}
	run, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	var dl *agent.DeadLettersError
	if err := durable.Consume(run, q, chain, durable.WithUntilEmpty()); err != nil && !errors.As(err, &dl) {
		t.Fatalf("Consume: %v", err)
	}
	if took["taken"] != 4096 || took["refused"] != 4096 {
		t.Errorf("the dead-letter sink took %v; want both items whole", took)
	}
	names := objects(t, js, "dls")
	if objectOf(names, "taken") || !objectOf(names, "refused") {
		t.Errorf("the bucket holds %v; want the object of the refused item alone", names)
	}
	if n, err := q.DeadLen(ctx); err != nil || n != 1 {
		t.Errorf("DeadLen = %d, %v; want 1", n, err)
	}
}
