// Package confirm publishes messages to JetStream streams and confirms
// each by the answer its stream sends back (a PubAck), at a lower cost
// than the client's asynchronous publishes: one subscription for all the
// answers, no timer and no channel for each message, and an answer read
// without decoding JSON unless it is an error. A queue confirms with it
// the items AddMany adds and the markers of the keys it hands out.
//
// A wait for an answer ends with the answer, or with an error: at its
// timeout, as its context ends, or as soon as the Publisher can take no
// more answers, because its connection closed ([nats.ErrConnectionClosed])
// or its subscription ended ([ErrClosed]).
package confirm

import (
	"errors"
	"fmt"
	"strconv"
	"sync"

	"github.com/nats-io/nats.go"
)

// ErrClosed is the error of a wait, or a publish, of a Publisher whose
// subscription to its answers ended while its connection stayed open: it
// was closed.
var ErrClosed = errors.New("confirm: the publisher takes no more answers")

// Publisher publishes messages on a connection, each with a reply
// subject of its own under one inbox, and hands each answer to the
// [Batch] that sent the message. Its methods are safe for concurrent use.
type Publisher struct {
	nc    *nats.Conn
	inbox string // ends with a dot
	sub   *nats.Subscription
	done  chan struct{} // closed once no answer can come any more

	mu     sync.Mutex
	err    error // why done is closed
	next   uint64
	owners map[uint64]slot // by reply token, the publishes not yet answered
}

// slot names one publish of a batch.
type slot struct {
	b *Batch
	i int
}

// New returns a Publisher on nc, subscribed to its inbox until Close or
// until nc closes.
func New(nc *nats.Conn) (*Publisher, error) {
	p := &Publisher{nc: nc, inbox: nc.NewInbox() + ".", done: make(chan struct{}), owners: make(map[uint64]slot)}
	sub, err := nc.Subscribe(p.inbox+"*", p.answer)
	if err != nil {
		return nil, err
	}
	p.sub = sub
	// The client calls the handler of an asynchronous subscription once
	// its last message was handed over, as the subscription ends: by
	// Unsubscribe, or because the connection closed. One that ended
	// before the handler was set is no longer valid.
	sub.SetClosedHandler(func(string) { p.end() })
	if !sub.IsValid() {
		p.end()
		return nil, p.ended()
	}
	// Answers are small and many: the client's default limits would drop
	// them under a burst of publishes.
	if err := sub.SetPendingLimits(-1, -1); err != nil {
		p.Close()
		return nil, err
	}
	return p, nil
}

// Close stops taking answers: every wait for one not yet taken ends
// with ErrClosed.
func (p *Publisher) Close() {
	p.end()
	_ = p.sub.Unsubscribe()
}

// end records that no more answers come, and why, and ends the waits for
// them; only its first call does.
func (p *Publisher) end() {
	err := ErrClosed
	if p.nc.IsClosed() {
		err = fmt.Errorf("confirm: no answer can come: %w", nats.ErrConnectionClosed)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.err == nil {
		p.err, p.owners = err, nil
		close(p.done)
	}
}

// ended returns why p takes no more answers, nil while it does.
func (p *Publisher) ended() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err
}

// answer hands the answer m to the batch that published its message.
func (p *Publisher) answer(m *nats.Msg) {
	token, err := strconv.ParseUint(m.Subject[len(p.inbox):], 10, 64)
	if err != nil {
		return
	}
	p.mu.Lock()
	s, ok := p.owners[token]
	delete(p.owners, token)
	p.mu.Unlock()
	if ok {
		s.b.answered(s.i, Read(m))
	}
}

// forget drops the publish of token: its answer, if it comes, is ignored.
func (p *Publisher) forget(token uint64) {
	p.mu.Lock()
	delete(p.owners, token)
	p.mu.Unlock()
}
