// Package ledger is what a process holds of a durable queue: each item it
// took and has not yet let go of (acknowledged, sent to the dead letters
// or handed back), by its ticket, and the deliveries it spared.
package ledger

import (
	"math/rand/v2"
	"sync"
	"time"

	"github.com/evolvekit/evolve/durable/internal/confirm"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Ticket names an item held: package durable's Ticket.
type Ticket uint64

// Ledger holds the items a process took, by ticket. Its methods are safe
// for concurrent use: the sink acknowledges from the chain's goroutines
// while the feeder adds and the heart beats.
type Ledger struct {
	mu   sync.Mutex
	next Ticket
	held map[Ticket]*Hold
	// seqs counts the holds of each stream sequence: a message the queue
	// handed out again while the process still held it (its lease ran
	// out, say, while a cluster elected a leader) is held twice, and is
	// one message of the queue's all the same. unknown counts the holds
	// of messages with no sequence.
	seqs    map[uint64]int
	unknown int
}

// Hold is one item held: its message, its key and stream sequence (0 if
// unknown), the confirmation of its key's marker (the zero Mark for none), and when
// its lease was last renewed.
type Hold struct {
	Msg  jetstream.Msg
	Key  string
	Seq  uint64
	Mark confirm.Mark
	// State is the headers of the state a move recorded for the item
	// (see package moved), nil for none.
	State nats.Header
	beat  time.Time
}

// New returns an empty ledger whose tickets start at a random number, so
// that the tickets of two runs of a process hardly ever meet.
func New() *Ledger {
	return &Ledger{next: Ticket(rand.Uint64()>>1 | 1), held: make(map[Ticket]*Hold), seqs: make(map[uint64]int)}
}

// Add holds msg, of stream sequence seq (0 if unknown) and marker mark,
// taken at instant at, and returns its ticket.
func (l *Ledger) Add(msg jetstream.Msg, key string, seq uint64, mark confirm.Mark, at time.Time) Ticket {
	l.mu.Lock()
	defer l.mu.Unlock()
	t := l.next
	l.next++
	if l.next == 0 {
		l.next = 1
	}
	l.held[t] = &Hold{Msg: msg, Key: key, Seq: seq, Mark: mark, beat: at}
	l.count(seq, 1)
	return t
}

// count adds d to the holds of seq. The caller holds mu.
func (l *Ledger) count(seq uint64, d int) {
	if seq == 0 {
		l.unknown += d
		return
	}
	if l.seqs[seq] += d; l.seqs[seq] == 0 {
		delete(l.seqs, seq)
	}
}

// Take lets the item of ticket t go, and returns it, if it was held.
func (l *Ledger) Take(t Ticket) (*Hold, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	h, ok := l.held[t]
	if ok {
		delete(l.held, t)
		l.count(h.Seq, -1)
	}
	return h, ok
}

// Messages counts the messages of the queue held: an item held twice, as
// it was handed out again, counts once.
func (l *Ledger) Messages() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.seqs) + l.unknown
}

// Sequences returns the stream sequences of the messages held, each once,
// and how many held messages have none.
func (l *Ledger) Sequences() ([]uint64, int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]uint64, 0, len(l.seqs))
	for seq := range l.seqs {
		out = append(out, seq)
	}
	return out, l.unknown
}

// Due returns the messages whose lease was renewed before at - every, and
// notes them renewed at at.
func (l *Ledger) Due(at time.Time, every time.Duration) []jetstream.Msg {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []jetstream.Msg
	for _, h := range l.held {
		if at.Sub(h.beat) >= every {
			h.beat = at
			out = append(out, h.Msg)
		}
	}
	return out
}

// Drain lets every item go, and returns them.
func (l *Ledger) Drain() []*Hold {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]*Hold, 0, len(l.held))
	for t, h := range l.held {
		out = append(out, h)
		delete(l.held, t)
	}
	clear(l.seqs)
	l.unknown = 0
	return out
}

// Seq returns the stream sequence of the item of ticket t, if it is held.
func (l *Ledger) Seq(t Ticket) (uint64, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	h, ok := l.held[t]
	if !ok {
		return 0, false
	}
	return h.Seq, true
}

// Moved notes h, the headers of the state recorded for the item of
// ticket t, and returns those of the state it replaces (nil for none);
// it reports false if t is not held.
func (l *Ledger) Moved(t Ticket, h nats.Header) (nats.Header, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	held, ok := l.held[t]
	if !ok {
		return nil, false
	}
	prev := held.State
	held.State = h
	return prev, true
}
