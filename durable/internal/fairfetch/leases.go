package fairfetch

import (
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// Leases holds the messages a source fetched and has not yet let go of,
// with when the lease of each was last renewed: a line, or the batch a
// Take handed out and its caller has not yet posted, may keep them longer
// than a lease. A message is held from its fetch until the first call
// that lets it go (see held), whoever holds it meanwhile. The zero Leases
// holds none; its methods are safe for concurrent use.
type Leases struct {
	mu    sync.Mutex
	beats map[jetstream.Msg]time.Time
}

// add holds msgs, fetched at at.
func (l *Leases) add(msgs []jetstream.Msg, at time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.beats == nil {
		l.beats = make(map[jetstream.Msg]time.Time, len(msgs))
	}
	for _, m := range msgs {
		l.beats[m] = at
	}
}

// drop lets go of msg.
func (l *Leases) drop(msg jetstream.Msg) {
	l.mu.Lock()
	delete(l.beats, msg)
	l.mu.Unlock()
}

// renewed notes that the lease of msg, if held, was renewed at at.
func (l *Leases) renewed(msg jetstream.Msg, at time.Time) {
	l.mu.Lock()
	if _, ok := l.beats[msg]; ok {
		l.beats[msg] = at
	}
	l.mu.Unlock()
}

// Len returns how many messages are held.
func (l *Leases) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.beats)
}

// Due returns the messages held whose lease was renewed before
// at - every, and notes them renewed at at.
func (l *Leases) Due(at time.Time, every time.Duration) []jetstream.Msg {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []jetstream.Msg
	for m, beat := range l.beats {
		if at.Sub(beat) >= every {
			l.beats[m] = at
			out = append(out, m)
		}
	}
	return out
}
