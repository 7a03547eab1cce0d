package moved

import (
	"context"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// Gate says whether a queue's stream may hold moved states, so that an
// item handed out again pays a look-up of its state only where moves are
// in use: once it has seen one (this process recorded a move, one was
// found, or the stream held some as it opened), always; until then, it
// asks the stream at most once a period, and takes an answer that does
// not come within it for none. So a queue that never moves looks nothing
// up for its items, and one whose server is in trouble (no leader, a lost
// quorum) does not make each item it hands out wait for an answer. It is
// safe for concurrent use.
type Gate struct {
	mu     sync.Mutex
	seen   bool
	asked  time.Time // when the stream was last asked
	period time.Duration
}

// NewGate returns a gate that asks the stream at most once a period; seen
// says the stream is known to hold states already.
func NewGate(seen bool, period time.Duration) *Gate {
	return &Gate{seen: seen, period: period}
}

// Saw notes that the stream holds a moved state.
func (g *Gate) Saw() {
	g.mu.Lock()
	g.seen = true
	g.mu.Unlock()
}

// May reports whether stream st may hold a state under prefix, at instant
// now: it asks the stream, within the period, if it has not seen one and
// did not ask within the period.
func (g *Gate) May(ctx context.Context, st jetstream.Stream, prefix string, now time.Time) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.seen || (!g.asked.IsZero() && now.Sub(g.asked) < g.period) {
		return g.seen
	}
	g.asked = now
	ctx, cancel := context.WithTimeout(ctx, g.period)
	defer cancel()
	if any, err := Any(ctx, st, prefix); err == nil && any {
		g.seen = true
	}
	return g.seen
}
