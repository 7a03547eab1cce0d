package main

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// slots is a runner that takes jobs without waiting while it has free
// slots, and makes post wait for one; it records the jobs in the order it
// took them.
type slots struct {
	free chan struct{}
	mu   sync.Mutex
	took []int
}

func (s *slots) tryPost(j job) bool {
	select {
	case <-s.free:
		s.take(j)
		return true
	default:
		return false
	}
}

func (s *slots) post(ctx context.Context, j job) error {
	select {
	case <-s.free:
		s.take(j)
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (s *slots) take(j job) {
	s.mu.Lock()
	s.took = append(s.took, j.id)
	s.mu.Unlock()
}

func (s *slots) limit(context.Context) (int, error) { return 0, nil }
func (s *slots) finish(context.Context) error       { return nil }
func (s *slots) stop(context.Context) error         { return nil }

func TestTheMailboxPassesJobsOnInTheOrderTheyArrived(t *testing.T) {
	r := &slots{free: make(chan struct{}, 100)}
	for range 3 {
		r.free <- struct{}{}
	}
	b := newMailbox(r)
	jobs := func(from, to int) []job {
		var js []job
		for i := from; i < to; i++ {
			js = append(js, job{id: i})
		}
		return js
	}
	b.deliver(jobs(0, 5)) // 0, 1, 2 go in at once; 3 and 4 wait
	assert.Equal(t, []int{0, 1, 2}, r.took)
	done := make(chan error)
	go func() { done <- b.courier(t.Context()) }()
	b.deliver(jobs(5, 8)) // behind 3 and 4, whatever room there is
	for range 5 {
		r.free <- struct{}{}
	}
	b.close()
	require.NoError(t, <-done)
	assert.Equal(t, []int{0, 1, 2, 3, 4, 5, 6, 7}, r.took)
}

func TestTheCourierStopsWhenItsContextEnds(t *testing.T) {
	r := &slots{free: make(chan struct{})}
	b := newMailbox(r)
	b.deliver([]job{{id: 0}})
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error)
	go func() { done <- b.courier(ctx) }()
	cancel()
	assert.ErrorIs(t, <-done, context.Canceled)
}
