// Package confirm publishes messages to JetStream streams and confirms
// each by the answer its stream sends back (a PubAck), at a lower cost
// than the client's asynchronous publishes: one subscription for all the
// answers, no timer and no channel for each message, and an answer read
// without decoding JSON unless it is an error. A queue confirms with it
// the items AddMany adds and the markers of the keys it hands out.
package confirm

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// ErrNoStream is the answer to a message no stream took: no stream
// listens on its subject, or none answered in time to the server.
var ErrNoStream = errors.New("no stream answered")

// Publisher publishes messages on a connection, each with a reply
// subject of its own under one inbox, and hands each answer to the
// [Batch] that sent the message. Its methods are safe for concurrent use.
type Publisher struct {
	nc    *nats.Conn
	inbox string // ends with a dot
	sub   *nats.Subscription

	mu     sync.Mutex
	next   uint64
	owners map[uint64]slot // by reply token, the publishes not yet answered
}

// slot names one publish of a batch.
type slot struct {
	b *Batch
	i int
}

// New returns a Publisher on nc, subscribed to its inbox until Close.
func New(nc *nats.Conn) (*Publisher, error) {
	p := &Publisher{nc: nc, inbox: nc.NewInbox() + ".", owners: make(map[uint64]slot)}
	sub, err := nc.Subscribe(p.inbox+"*", p.answer)
	if err != nil {
		return nil, err
	}
	// Answers are small and many: the client's default limits would drop
	// them under a burst of publishes.
	if err := sub.SetPendingLimits(-1, -1); err != nil {
		_ = sub.Unsubscribe()
		return nil, err
	}
	p.sub = sub
	return p, nil
}

// Close stops taking answers; the publishes not yet answered never are.
func (p *Publisher) Close() {
	_ = p.sub.Unsubscribe()
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

// Result is what a stream answered to one message.
type Result struct {
	// Done reports whether the stream answered; the rest holds only then.
	Done bool
	// Duplicate reports that the stream had the message's ID within its
	// dedupe window already, and did not store it again.
	Duplicate bool
	// Err is the stream's refusal (a *jetstream.APIError), or ErrNoStream.
	Err error
}

// Read returns the Result an answer m says.
func Read(m *nats.Msg) Result {
	data := m.Data
	if len(data) == 0 {
		// A status with no body: no responders.
		return Result{Done: true, Err: fmt.Errorf("%w (status %s)", ErrNoStream, m.Header.Get("Status"))}
	}
	if bytes.HasPrefix(data, []byte(`{"stream":`)) {
		// The servers write a PubAck's stream first, and an error first
		// in an answer that has one; "duplicate" only when true (and a
		// stream's name holds no quote).
		return Result{Done: true, Duplicate: bytes.Contains(data, []byte(`"duplicate"`))}
	}
	var resp struct {
		Error     *jetstream.APIError `json:"error"`
		Duplicate bool                `json:"duplicate"`
	}
	if err := json.Unmarshal(data, &resp); err != nil {
		return Result{Done: true, Err: fmt.Errorf("an answer that is no PubAck: %q", data)}
	}
	if resp.Error != nil {
		return Result{Done: true, Err: resp.Error}
	}
	return Result{Done: true, Duplicate: resp.Duplicate}
}
