package main

import (
	"context"
	"sync"
)

// mailbox hands arriving jobs to a runner in the order they arrived. What the
// runner takes at once goes straight in; the rest waits in the backlog, which
// has no bound (letters pile up), until the courier gets it in. A mailbox is
// safe for concurrent use: one goroutine delivers, another runs the courier.
type mailbox struct {
	r runner

	mu      sync.Mutex
	backlog []job // oldest first; the first stays until it is posted
	closed  bool  // no more jobs will arrive

	wake chan struct{} // tells the courier that the backlog or closed changed
}

// newMailbox returns an empty mailbox for r.
func newMailbox(r runner) *mailbox { return &mailbox{r: r, wake: make(chan struct{}, 1)} }

// deliver hands js to the runner: while nothing waits in the backlog, each
// job the runner takes without waiting goes in at once; the others join the
// backlog, for the courier.
func (b *mailbox) deliver(js []job) {
	b.mu.Lock()
	defer b.mu.Unlock()
	i := 0
	if len(b.backlog) == 0 {
		for i < len(js) && b.r.tryPost(js[i]) {
			i++
		}
	}
	if i < len(js) {
		b.backlog = append(b.backlog, js[i:]...)
		b.signal()
	}
}

// close says that no more jobs will arrive.
func (b *mailbox) close() {
	b.mu.Lock()
	b.closed = true
	b.mu.Unlock()
	b.signal()
}

// signal wakes the courier, if it is not already due to wake.
func (b *mailbox) signal() {
	select {
	case b.wake <- struct{}{}:
	default:
	}
}

// courier posts the backlog to the runner, oldest first, waiting while the
// runner is full, until the mailbox is closed and the backlog empty. A job
// leaves the backlog only once it is posted, so deliver never overtakes it.
// It returns ctx.Err() if ctx ends first, or what the runner refuses a job
// with.
func (b *mailbox) courier(ctx context.Context) error {
	for {
		j, ok, closed := b.first()
		if !ok {
			if closed {
				return nil
			}
			select {
			case <-b.wake:
			case <-ctx.Done():
				return ctx.Err()
			}
			continue
		}
		if err := b.r.post(ctx, j); err != nil {
			return err
		}
		b.mu.Lock()
		b.backlog = b.backlog[1:]
		b.mu.Unlock()
	}
}

// first returns the oldest job in the backlog, if any, and whether the
// mailbox is closed.
func (b *mailbox) first() (j job, ok, closed bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.backlog) == 0 {
		return job{}, false, b.closed
	}
	return b.backlog[0], true, b.closed
}
