package worker

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// tasks returns n tasks for items from 0.
func tasks(n int) []task {
	out := make([]task, n)
	for i := range out {
		out[i] = task{item: uint64(i)}
	}
	return out
}

// A line takes what fits in its room, hands the tasks out oldest first,
// and, closed, lets its slots go once it is empty.
func TestLineKeepsOrderAndRoom(t *testing.T) {
	l := newLine(1, 3)
	assert.Equal(t, 3, l.put(tasks(5)), "room for 3")
	assert.Equal(t, 0, l.put(tasks(1)), "full")
	l.close()
	wake := make(chan struct{}, 1)
	for i := range 3 {
		j, ok := l.take(wake)
		require.True(t, ok)
		assert.Equal(t, uint64(i), j.item)
	}
	_, ok := l.take(wake)
	assert.False(t, ok, "closed and empty")
}

// Work that does not end holds its slot: the tasks behind it wake the other
// slots, every one of them, though one put woke only one slot.
func TestLineWakesEverySlotForSlowWork(t *testing.T) {
	const slots = 8
	l := newLine(slots, slots)
	started := make(chan uint64, slots)
	release := make(chan struct{})
	var wg sync.WaitGroup
	for range slots {
		wg.Add(1)
		go func() {
			defer wg.Done()
			wake := make(chan struct{}, 1)
			for {
				j, ok := l.take(wake)
				if !ok {
					return
				}
				started <- j.item
				<-release
			}
		}()
	}
	require.Equal(t, slots, l.put(tasks(slots)))
	seen := map[uint64]bool{}
	for range slots {
		select {
		case item := <-started:
			seen[item] = true
		case <-time.After(10 * time.Second):
			t.Fatalf("%d of %d tasks started", len(seen), slots)
		}
	}
	assert.Len(t, seen, slots, "each task on a slot of its own, at once")
	close(release)
	l.close()
	wg.Wait()
}
