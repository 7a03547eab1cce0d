package fairfetch

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// fakeMsg is a message whose acknowledgements are counted, and whose
// DoubleAck fails, as one whose answer was lost.
type fakeMsg struct {
	jetstream.Msg
	acks, naks, renewals int
}

func (m *fakeMsg) Ack() error                      { m.acks++; return nil }
func (m *fakeMsg) DoubleAck(context.Context) error { return errors.New("lost") }
func (m *fakeMsg) Nak() error                      { m.naks++; return nil }
func (m *fakeMsg) InProgress() error               { m.renewals++; return nil }

// TestAHandedOutMessageIsChargedOnceAndRenewedByWhoeverHoldsIt hands out
// two messages of a key from a Fetcher's book, without servers: each is
// renewed through the Fetcher's leases until a ledger renews it, and let
// go of once, however many calls let it go.
func TestAHandedOutMessageIsChargedOnceAndRenewedByWhoeverHoldsIt(t *testing.T) {
	book, err := NewBook[jetstream.Msg](time.Millisecond, nil, 8, 8)
	if err != nil {
		t.Fatal(err)
	}
	f := &Fetcher{book: book, leases: &Leases{}}
	t0 := time.Unix(1000, 0)
	a, b := &fakeMsg{}, &fakeMsg{}
	book.Fetched("k", []jetstream.Msg{a, b}, 2)
	f.leases.add([]jetstream.Msg{a, b}, t0)

	if due := f.leases.Due(t0.Add(10*time.Millisecond), 50*time.Millisecond); len(due) != 0 {
		t.Fatalf("due %d messages before a third of a lease", len(due))
	}
	// a is handed out, and a ledger renews it: the Fetcher does not.
	_, msg, charge, ok := book.Pop()
	if !ok || msg != a {
		t.Fatalf("popped %v, %v; want the first message", msg, ok)
	}
	ha := &held{Msg: msg, leases: f.leases, f: f, key: "k", charge: charge, start: t0}
	_ = ha.InProgress()
	due := f.leases.Due(t0.Add(60*time.Millisecond), 50*time.Millisecond)
	if len(due) != 1 || due[0] != b {
		t.Fatalf("due %v after a ledger renewed a; want b alone", due)
	}
	// Let go of twice, a DoubleAck that failed then an Ack: charged once.
	_ = ha.DoubleAck(context.Background())
	_ = ha.Ack()
	if a.acks != 1 || f.leases.Len() != 1 {
		t.Fatalf("a acked %d times, %d messages still renewed; want 1 and 1 (b)", a.acks, f.leases.Len())
	}
	f.Drain()
	if b.naks != 1 || book.Len() != 0 || f.leases.Len() != 0 {
		t.Errorf("Drain handed back b %d times and left %d in the book, %d renewed; want 1, 0 and 0", b.naks, book.Len(), f.leases.Len())
	}
}

// TestAPlainMessageIsRenewedUntilLetGoOf holds a message as a Plain source
// hands it out, without servers: it is due a renewal while it waits to be
// posted, not just after a ledger renewed it, and never once let go of,
// however many calls let it go.
func TestAPlainMessageIsRenewedUntilLetGoOf(t *testing.T) {
	leases := &Leases{}
	t0 := time.Unix(1000, 0)
	a := &fakeMsg{}
	leases.add([]jetstream.Msg{a}, t0)
	m := &held{Msg: a, leases: leases}
	if due := leases.Due(t0.Add(60*time.Millisecond), 50*time.Millisecond); len(due) != 1 || due[0] != a {
		t.Fatalf("due %v while waiting to be posted; want the message", due)
	}
	_ = m.InProgress() // a ledger holds it now
	if due := leases.Due(t0.Add(120*time.Millisecond), 50*time.Millisecond); len(due) != 0 {
		t.Fatalf("due %v just after a ledger renewed it; want none", due)
	}
	_ = m.Nak()
	_ = m.Ack()
	if due := leases.Due(t0.Add(time.Hour), 50*time.Millisecond); len(due) != 0 || leases.Len() != 0 {
		t.Errorf("due %v, %d held after it was let go of; want none", due, leases.Len())
	}
	if a.naks != 1 || a.acks != 1 {
		t.Errorf("naks %d, acks %d; want the calls passed on once each", a.naks, a.acks)
	}
}
