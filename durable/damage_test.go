package durable_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/compose"
	"github.com/evolvekit/evolve/durable"
)

// damageItems is how many items the damage tests keep: each item k<i> is
// "<i>" and a pad, at stream sequence i+1.
const damageItems = 2000

// bigPad makes 2,000 items fill three blocks of NATS's (4 MB each).
var bigPad = strings.Repeat("x", 5000)

// TestADamagedStoreIsReported damages the message blocks of an embedded
// queue's store after a clean close, cut short or scribbled over at a few
// places, in a store of one block and of three. Open returns an
// ErrDamaged that names how many items were lost and their sequences,
// again at the next Open; with Embedded.AcceptLoss the queue opens,
// Damage says the same, and every item it kept comes out intact and
// once, and none of those lost; the next clean close and open report
// nothing.
func TestADamagedStoreIsReported(t *testing.T) {
	skipUnderRace(t)
	scribble := func(at func(n int) int) func([]byte) []byte {
		return func(b []byte) []byte {
			for i := at(len(b)); i < at(len(b))+4096 && i < len(b); i++ {
				b[i] = 0xAB
			}
			return b
		}
	}
	half := func(b []byte) []byte { return b[:len(b)/2] }
	for _, c := range []struct {
		name   string
		big    bool
		last   bool // damage the last block, not the first
		damage func([]byte) []byte
		// unread: NATS serves the block as it is, skipping the records it
		// cannot read, and cuts it at the first of them only once the loss
		// is accepted: Open names those, Damage what went.
		unread bool
	}{
		{"a block cut in half", false, false, half, false},
		{"4 KiB scribbled in the middle of a block", false, false, scribble(func(n int) int { return n / 2 }), false},
		{"4 KiB scribbled at the start of a block", false, false, scribble(func(int) int { return 64 }), false},
		{"the first of three blocks cut in half", true, false, half, false},
		{"4 KiB scribbled in the middle of the first of three blocks", true, false, scribble(func(n int) int { return n / 2 }), true},
		{"the last of three blocks scribbled in the middle", true, true, scribble(func(n int) int { return n / 2 }), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			pad := ""
			if c.big {
				pad = bigPad
			}
			q := openStrings(t, durable.Embedded{Dir: dir})
			entries := make([]durable.Entry[string], damageItems)
			for i := range entries {
				entries[i] = durable.Entry[string]{Key: "k" + strconv.Itoa(i), Value: strconv.Itoa(i) + pad}
			}
			if err := q.AddMany(context.Background(), entries); err != nil {
				t.Fatal(err)
			}
			if err := q.Close(); err != nil {
				t.Fatal(err)
			}
			damageBlock(t, dir, c.last, c.damage)

			_, err := durable.Open[string](durable.Embedded{Dir: dir}, durable.Config{})
			if !errors.Is(err, durable.ErrDamaged) {
				t.Fatalf("Open of the damaged store = %v; want an ErrDamaged", err)
			}
			_, again := durable.Open[string](durable.Embedded{Dir: dir}, durable.Config{})
			q = openStrings(t, durable.Embedded{Dir: dir, AcceptLoss: true})
			kept := drain(t, q, pad)
			lost := missing(kept)
			if len(lost) == 0 {
				t.Fatal("the damage lost nothing: the test damaged nothing")
			}
			want := fmt.Sprintf("%d of its %d items lost, at sequences %s", len(lost), damageItems, seqRanges(lost))
			if got := q.Damage(); !errors.Is(got, durable.ErrDamaged) || !strings.Contains(got.Error(), want) {
				t.Errorf("Damage = %v; want an ErrDamaged saying %q", got, want)
			}
			if c.unread {
				// What Open names precedes the rest of the block.
				want = fmt.Sprintf("of its %d items lost or unreadable, at sequences %d", damageItems, lost[0])
			}
			for _, e := range []error{err, again} {
				if !errors.Is(e, durable.ErrDamaged) || !strings.Contains(e.Error(), want) {
					t.Errorf("Open said %v; want an ErrDamaged saying %q", e, want)
				}
			}
			t.Logf("%d items kept, intact; Open said: %v; and then Damage: %v", len(kept), err, q.Damage())
			if err := q.Close(); err != nil {
				t.Fatal(err)
			}
			q = openStrings(t, durable.Embedded{Dir: dir})
			if q.Damage() != nil {
				t.Errorf("after the loss was accepted and the queue closed, Open found damage again: %v", q.Damage())
			}
			q.Close()
		})
	}
}

// openStrings opens a queue of strings in store, and fails the test if it
// cannot.
func openStrings(t *testing.T, store durable.Store) *durable.Queue[string] {
	t.Helper()
	q, err := durable.Open[string](store, durable.Config{})
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// damageBlock rewrites the first block file of the default queue's stream
// in dir, or its last with last, as damage makes it.
func damageBlock(t *testing.T, dir string, last bool, damage func([]byte) []byte) {
	t.Helper()
	blocks, err := filepath.Glob(filepath.Join(dir, "jetstream", "*", "streams", durable.DefaultName, "msgs", "*.blk"))
	if err != nil || len(blocks) == 0 {
		t.Fatalf("no block files (%v)", err)
	}
	slices.SortFunc(blocks, func(a, b string) int { return len(a) - len(b) }) // 1.blk, 2.blk, ..., 10.blk
	name := blocks[0]
	if last {
		name = blocks[len(blocks)-1]
	}
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, damage(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// drain consumes q until it is empty and returns the number of each item
// that came out, checking that each came out once and whole: "<i>" and
// pad, under key k<i>.
func drain(t *testing.T, q *durable.Queue[string], pad string) map[int]bool {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rt := agent.NewRuntime()
	defer rt.Shutdown(ctx)
	var mu sync.Mutex
	kept := map[int]bool{}
	chain, err := compose.Start(rt, mustBufferOf[string](t, 100), durable.Batches(q, func(b []durable.Item[string]) error {
		mu.Lock()
		defer mu.Unlock()
		for _, it := range b {
			i, err := strconv.Atoi(strings.TrimPrefix(it.Key, "k"))
			if err != nil || it.Value != strconv.Itoa(i)+pad {
				t.Errorf("item %s came out as %.20q", it.Key, it.Value)
			}
			if kept[i] {
				t.Errorf("item %s came out twice", it.Key)
			}
			kept[i] = true
		}
		return nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	if err := durable.Consume(ctx, q, chain, durable.WithUntilEmpty()); err != nil {
		t.Fatal(err)
	}
	return kept
}

// missing returns the stream sequences of the items not kept, in order:
// item i was added at sequence i+1.
func missing(kept map[int]bool) []int {
	var out []int
	for i := range damageItems {
		if !kept[i] {
			out = append(out, i+1)
		}
	}
	return out
}

// seqRanges writes seqs, in order, as Open's error does: "1-5, 9".
func seqRanges(seqs []int) string {
	var parts []string
	for i := 0; i < len(seqs); {
		j := i
		for j+1 < len(seqs) && seqs[j+1] == seqs[j]+1 {
			j++
		}
		if j > i {
			parts = append(parts, fmt.Sprintf("%d-%d", seqs[i], seqs[j]))
		} else {
			parts = append(parts, strconv.Itoa(seqs[i]))
		}
		i = j + 1
	}
	return strings.Join(parts, ", ")
}

// TestAnIntactStoreIsNotReported closes a queue that holds items and the
// markers of items consumed, touches its block files as a copy of the
// directory would, and opens it again: Open reads every message, finds
// each, and reports nothing.
func TestAnIntactStoreIsNotReported(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	q, err := durable.Open[int](durable.Embedded{Dir: dir}, durable.Config{Dedupe: dedupeWindow})
	if err != nil {
		t.Fatal(err)
	}
	fill(ctx, t, q, 100)
	if seen := consumeAll(t, q); len(seen) != 100 {
		t.Fatalf("consumed %d keys; want 100", len(seen))
	}
	if err := q.AddMany(ctx, keyed(300)); err != nil {
		t.Fatal(err)
	}
	if err := q.Close(); err != nil {
		t.Fatal(err)
	}
	blocks, err := filepath.Glob(filepath.Join(dir, "jetstream", "*", "streams", durable.DefaultName, "msgs", "*.blk"))
	if err != nil || len(blocks) == 0 {
		t.Fatalf("no block files (%v)", err)
	}
	later := time.Now().Add(time.Minute)
	for _, b := range blocks {
		if err := os.Chtimes(b, later, later); err != nil {
			t.Fatal(err)
		}
	}
	q, err = durable.Open[int](durable.Embedded{Dir: dir}, durable.Config{Dedupe: dedupeWindow})
	if err != nil {
		t.Fatalf("Open of an intact store whose files were touched: %v", err)
	}
	defer q.Close()
	if n, err := q.Len(ctx); err != nil || n != 200 || q.Damage() != nil {
		t.Errorf("Len = %d, %v, Damage = %v; want 200, none", n, err, q.Damage())
	}
}
