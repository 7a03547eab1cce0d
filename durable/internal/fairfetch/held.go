package fairfetch

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// held is a message a source handed out, whose lease its Leases renews
// until the first call that lets it go (an acknowledgement, a negative
// one, a termination): that call drops it from the Leases and, for a
// Fetcher's message, tells the book what its work took, from when it was
// handed out, so that its key is charged for it once. Renewing its lease
// is noted, so that the Leases does not renew it as well.
type held struct {
	jetstream.Msg
	leases *Leases
	f      *Fetcher // nil for a Plain source's
	key    string
	charge time.Duration
	start  time.Time
	ended  atomic.Bool
}

// end lets go of the message, the first time only.
func (m *held) end() {
	if m.ended.Swap(true) {
		return
	}
	m.leases.drop(m.Msg)
	if m.f != nil {
		m.f.done(m.key, m.charge, m.start)
	}
}

// Ack acknowledges the message (see jetstream.Msg).
func (m *held) Ack() error { m.end(); return m.Msg.Ack() }

// DoubleAck acknowledges the message and waits for the server's answer.
func (m *held) DoubleAck(ctx context.Context) error { m.end(); return m.Msg.DoubleAck(ctx) }

// Nak hands the message back.
func (m *held) Nak() error { m.end(); return m.Msg.Nak() }

// NakWithDelay hands the message back, to be delivered after delay.
func (m *held) NakWithDelay(delay time.Duration) error { m.end(); return m.Msg.NakWithDelay(delay) }

// Term tells the server not to deliver the message again.
func (m *held) Term() error { m.end(); return m.Msg.Term() }

// TermWithReason does as Term, with a reason.
func (m *held) TermWithReason(reason string) error { m.end(); return m.Msg.TermWithReason(reason) }

// InProgress renews the message's lease.
func (m *held) InProgress() error {
	m.leases.renewed(m.Msg, time.Now())
	return m.Msg.InProgress()
}
