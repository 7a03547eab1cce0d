package durable_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/compose"
	"github.com/evolvekit/evolve/durable"
	"github.com/evolvekit/evolve/parallel"
)

// TestOpenPurgesTheStatesOfItemsGone records a moved state for two items
// of an embedded queue, then removes the first item's message as its
// acknowledgement would, leaving its state behind as a crash before the
// purge does. Opening the queue again purges that state and keeps the
// other, and the item left comes out of the queue with its state.
func TestOpenPurgesTheStatesOfItemsGone(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	q, err := durable.Open[int](durable.Embedded{Dir: dir}, durable.Config{})
	if err != nil {
		t.Fatal(err)
	}
	var seqs []uint64
	for i, key := range []string{"gone", "kept"} {
		if err := q.Add(ctx, key, i); err != nil {
			t.Fatal(err)
		}
		seq, err := durable.LastItem(q)
		if err != nil {
			t.Fatal(err)
		}
		if err := durable.PutMoved(q, seq, key, 100+i, "b", 2); err != nil {
			t.Fatal(err)
		}
		seqs = append(seqs, seq)
	}
	if err := durable.Acknowledged(q, seqs[0]); err != nil {
		t.Fatal(err)
	}
	if err := q.Close(); err != nil {
		t.Fatal(err)
	}

	q, err = durable.Open[int](durable.Embedded{Dir: dir}, durable.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	states, err := durable.MovedStates(q)
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("[evolve.moved.%d]", seqs[1]); fmt.Sprint(states) != want {
		t.Fatalf("the states after Open are %v; want %s: the state of the item gone purged, the other kept", states, want)
	}
	rt := agent.NewRuntime()
	defer rt.Shutdown(ctx)
	same, err := parallel.Stage(parallel.Config{Limit: 1}, durable.Map(func(_ context.Context, v int) (int, error) { return v, nil }))
	if err != nil {
		t.Fatal(err)
	}
	var got []durable.Item[int]
	chain, err := compose.Start(rt, same, durable.Sink(q, func(it durable.Item[int]) error {
		got = append(got, it)
		return nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	run, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if err := durable.Consume(run, q, chain, durable.WithUntilEmpty()); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Key != "kept" || got[0].Value != 101 || got[0].Tag != "b" || got[0].Moves != 2 {
		t.Fatalf("the sink got %+v; want the item kept once, from its state (101, tag b, 2 moves)", got)
	}
	if states, err := durable.MovedStates(q); err != nil || len(states) != 0 {
		t.Errorf("the states at the end are %v, %v; want none: the sink's acknowledgement purged the last", states, err)
	}
}
