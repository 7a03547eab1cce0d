package durable_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/evolvekit/evolve/durable"
)

// TestLenCountsAnItemOnceItsAddIsConfirmed adds items one by one, each
// read back by Len at once (the servers count them for the consumer on a
// goroutine of their own, a moment later), then consumes them all and
// adds more: Len is never low, and exact on a queue at rest.
func TestLenCountsAnItemOnceItsAddIsConfirmed(t *testing.T) {
	ctx := context.Background()
	q, err := durable.Open[int](durable.Embedded{Dir: t.TempDir()}, durable.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	for i := range 300 {
		if err := q.Add(ctx, fmt.Sprint("k", i), i); err != nil {
			t.Fatal(err)
		}
		if n, err := q.Len(ctx); err != nil || n < i+1 {
			t.Fatalf("after %d adds, Len = %d, %v", i+1, n, err)
		}
	}
	if seen := consumeAll(t, q); len(seen) != 300 {
		t.Fatalf("consumed %d keys; want 300", len(seen))
	}
	for i := range 5 {
		if err := q.Add(ctx, fmt.Sprint("new", i), i); err != nil {
			t.Fatal(err)
		}
		if n, err := q.Len(ctx); err != nil || n != i+1 {
			t.Fatalf("after %d adds to a consumed queue, Len = %d, %v; want %d", i+1, n, err, i+1)
		}
	}
}
