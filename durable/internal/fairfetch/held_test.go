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
// renewed by the Fetcher until a ledger renews it, and let go of once,
// however many calls let it go.
func TestAHandedOutMessageIsChargedOnceAndRenewedByWhoeverHoldsIt(t *testing.T) {
	book, err := NewBook[jetstream.Msg](time.Millisecond, nil, 8, 8)
	if err != nil {
		t.Fatal(err)
	}
	f := &Fetcher{book: book, lined: map[jetstream.Msg]time.Time{}}
	t0 := time.Unix(1000, 0)
	a, b := &fakeMsg{}, &fakeMsg{}
	book.Fetched("k", []jetstream.Msg{a, b}, 2)
	f.lined[a], f.lined[b] = t0, t0

	if due := f.Due(t0.Add(10*time.Millisecond), 50*time.Millisecond); len(due) != 0 {
		t.Fatalf("due %d messages before a third of a lease", len(due))
	}
	// a is handed out, and a ledger renews it: the Fetcher does not.
	_, msg, charge, ok := book.Pop()
	if !ok || msg != a {
		t.Fatalf("popped %v, %v; want the first message", msg, ok)
	}
	ha := &held{Msg: msg, f: f, key: "k", charge: charge, start: t0}
	_ = ha.InProgress()
	due := f.Due(t0.Add(60*time.Millisecond), 50*time.Millisecond)
	if len(due) != 1 || due[0] != b {
		t.Fatalf("due %v after a ledger renewed a; want b alone", due)
	}
	// Let go of twice, a DoubleAck that failed then an Ack: charged once.
	_ = ha.DoubleAck(context.Background())
	_ = ha.Ack()
	if a.acks != 1 || len(f.lined) != 1 {
		t.Fatalf("a acked %d times, %d messages still renewed; want 1 and 1 (b)", a.acks, len(f.lined))
	}
	f.Drain()
	if b.naks != 1 || book.Len() != 0 {
		t.Errorf("Drain handed back b %d times and left %d in the book; want 1 and 0", b.naks, book.Len())
	}
	if (*Fetcher)(nil).Due(t0, time.Second) != nil {
		t.Error("a nil Fetcher has messages due")
	}
}
