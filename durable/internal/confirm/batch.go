package confirm

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
)

// ErrDropped is the error of a wait for a publish its batch no longer
// keeps (see Batch.Drop), or never made.
var ErrDropped = errors.New("confirm: a publish its batch does not keep")

// Batch is a run of publishes whose answers are awaited together: the
// markers of one fetch, the items of one AddMany. Each publish has an
// index, from 0 in the order of Publish. Its methods are safe for
// concurrent use.
type Batch struct {
	p *Publisher

	mu      sync.Mutex
	base    int // the index of results[0]: those before are forgotten
	results []pending
	waiters int           // how many Waits wait on changed
	changed chan struct{} // closed when an answer comes while some wait
}

// pending is one publish of a batch: its message, reply token (0 for
// none: not sent) and answer.
type pending struct {
	msg   *nats.Msg
	token uint64
	Result
}

// Batch returns an empty batch of p's.
func (p *Publisher) Batch() *Batch {
	return &Batch{p: p, changed: make(chan struct{})}
}

// Publish publishes m, setting its reply subject, and returns its index
// in b. An error means m was not sent: its index is answered with it.
func (b *Batch) Publish(m *nats.Msg) (int, error) {
	p := b.p
	p.mu.Lock()
	err := p.err // no answer would come
	var token uint64
	if err == nil {
		p.next++
		token = p.next
	}
	b.mu.Lock()
	i := b.base + len(b.results)
	b.results = append(b.results, pending{msg: m, token: token})
	b.mu.Unlock()
	if err == nil {
		p.owners[token] = slot{b, i}
	}
	p.mu.Unlock()
	if err == nil {
		m.Reply = p.inbox + strconv.FormatUint(token, 10)
		if err = p.nc.PublishMsg(m); err == nil {
			return i, nil
		}
		p.forget(token)
	}
	b.answered(i, Result{Done: true, Err: err})
	return i, err
}

// answered records r as the answer to publish i, if b still keeps it,
// and wakes the Waits.
func (b *Batch) answered(i int, r Result) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if k := i - b.base; k >= 0 && k < len(b.results) {
		b.results[k].Result = r
	}
	if b.waiters > 0 {
		close(b.changed)
		b.changed = make(chan struct{})
	}
}

// Msg returns the message of publish i, nil if b no longer keeps it.
func (b *Batch) Msg(i int) *nats.Msg {
	b.mu.Lock()
	defer b.mu.Unlock()
	if k := i - b.base; k >= 0 && k < len(b.results) {
		return b.results[k].msg
	}
	return nil
}

// Wait waits for the answer to publish i, and returns it. An error means
// none came, and one that comes later is ignored: it wraps
// nats.ErrTimeout once timeout passed, it is ctx's error once ctx ended,
// and it wraps nats.ErrConnectionClosed, or is ErrClosed, as soon as the
// Publisher takes no more answers; ErrDropped for a publish b does not
// keep.
func (b *Batch) Wait(ctx context.Context, i int, timeout time.Duration) (Result, error) {
	var t *time.Timer
	for {
		b.mu.Lock()
		k := i - b.base
		if k < 0 || k >= len(b.results) {
			b.mu.Unlock()
			return Result{}, fmt.Errorf("%w: %d", ErrDropped, i)
		}
		r, token := b.results[k].Result, b.results[k].token
		if r.Done {
			b.mu.Unlock()
			return r, nil
		}
		select {
		case <-b.p.done:
			// The subscription handed over its last answer before it
			// ended: r's will not come.
			b.mu.Unlock()
			return Result{}, b.p.ended()
		default:
		}
		b.waiters++
		changed := b.changed
		b.mu.Unlock()
		if t == nil {
			t = time.NewTimer(timeout)
			defer t.Stop()
		}
		var err error
		select {
		case <-changed:
		case <-b.p.done: // seen above, on the next turn
		case <-t.C:
			err = fmt.Errorf("confirm: no answer within %v: %w", timeout, nats.ErrTimeout)
		case <-ctx.Done():
			err = ctx.Err()
		}
		b.mu.Lock()
		b.waiters--
		b.mu.Unlock()
		if err != nil {
			b.p.forget(token)
			return Result{}, err
		}
	}
}

// Drop forgets the publishes before index i, answered or not: their
// answers are ignored if they come, and b keeps nothing of them.
func (b *Batch) Drop(i int) {
	b.mu.Lock()
	k := min(max(i-b.base, 0), len(b.results))
	gone := b.results[:k]
	b.results, b.base = b.results[k:], b.base+k
	b.mu.Unlock()
	for _, g := range gone {
		if !g.Done {
			b.p.forget(g.token)
		}
	}
}

// Close forgets every publish of b (see Drop).
func (b *Batch) Close() {
	b.mu.Lock()
	end := b.base + len(b.results)
	b.mu.Unlock()
	b.Drop(end)
}
