package agent

import (
	"context"
	"sync"
)

// dispatcher runs the mailboxes of a runtime's actors. protoactor's default
// starts a goroutine each time an idle mailbox gets a message, and that
// goroutine then grows its stack to the depth of evolve and its effects;
// under a steady flow of small batches that is most of the cost. This one
// keeps the goroutines: one that has run a mailbox waits for the next, and a
// new one starts only when none waits. So there are never more than the
// actors that run at once, plus those that are about to wait. They go when
// the runtime shuts down.
type dispatcher struct {
	tasks chan func() // unbuffered: a mailbox run for a goroutine that waits

	mu      sync.Mutex
	live    int           // goroutines started and not yet gone
	stopped bool          // the runtime shut down: goroutines go once idle
	quit    chan struct{} // closed when stopped
	gone    chan struct{} // closed when stopped and live is 0
	isGone  bool          // gone is closed
}

func newDispatcher() *dispatcher {
	return &dispatcher{tasks: make(chan func()), quit: make(chan struct{}), gone: make(chan struct{})}
}

// Schedule implements actor.Dispatcher.
func (d *dispatcher) Schedule(run func()) {
	select {
	case d.tasks <- run:
		return
	default:
	}
	d.mu.Lock()
	d.live++
	d.mu.Unlock()
	go d.loop(run)
}

// Throughput implements actor.Dispatcher: how many messages a mailbox
// handles before it yields the processor. It is protoactor's default.
func (d *dispatcher) Throughput() int { return 300 }

// loop runs mailboxes until the runtime shuts down.
func (d *dispatcher) loop(run func()) {
	defer d.left()
	for {
		run()
		select {
		case run = <-d.tasks:
		case <-d.quit:
			return
		}
	}
}

// left counts a goroutine gone.
func (d *dispatcher) left() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.live--
	d.settle()
}

// settle closes gone once the runtime shut down and no goroutine is left.
// The caller holds mu.
func (d *dispatcher) settle() {
	if d.stopped && d.live == 0 && !d.isGone {
		d.isGone = true
		close(d.gone)
	}
}

// stop lets the goroutines go and waits for them, or for ctx.
func (d *dispatcher) stop(ctx context.Context) error {
	d.mu.Lock()
	if !d.stopped {
		d.stopped = true
		close(d.quit)
		d.settle()
	}
	d.mu.Unlock()
	select {
	case <-d.gone:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
