package ledger

import (
	"testing"
	"time"

	"github.com/evolvekit/evolve/durable/internal/confirm"
	"github.com/stretchr/testify/assert"
)

// A message the queue hands out again while the process still holds it
// is one message of the queue's: Consume compares the queue's length with
// what the ledger holds, and a message counted twice would hide another
// that waits to come back.
func TestTheLedgerCountsAMessageHeldTwiceOnce(t *testing.T) {
	l := New()
	at := time.Now()
	first := l.Add(nil, "a", 7, confirm.Mark{}, at)
	again := l.Add(nil, "a", 7, confirm.Mark{}, at) // handed out again: its lease ran out
	l.Add(nil, "b", 8, confirm.Mark{}, at)
	l.Add(nil, "c", 0, confirm.Mark{}, at) // no metadata: counted alone
	assert.Equal(t, 3, l.Messages(), "a, b and c")
	l.Take(first)
	assert.Equal(t, 3, l.Messages(), "a is still held, under its new ticket")
	l.Take(again)
	assert.Equal(t, 2, l.Messages())
	l.Drain()
	assert.Zero(t, l.Messages())
}

func TestSparedDeliveriesAreCountedUntilForgotten(t *testing.T) {
	var s Spared
	assert.Zero(t, s.Of(7))
	s.Add(7)
	s.Add(7)
	s.Add(8)
	assert.Equal(t, 2, s.Of(7))
	s.Forget(7)
	assert.Zero(t, s.Of(7))
	assert.Equal(t, 1, s.Of(8))
}
