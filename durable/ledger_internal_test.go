package durable

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// A message the queue hands out again while the process still holds it
// is one message of the queue's: Consume compares the queue's length with
// what the ledger holds, and a message counted twice would hide another
// that waits to come back.
func TestTheLedgerCountsAMessageHeldTwiceOnce(t *testing.T) {
	l := newLedger()
	at := time.Now()
	first := l.add(nil, "a", 7, nil, at)
	again := l.add(nil, "a", 7, nil, at) // handed out again: its lease ran out
	l.add(nil, "b", 8, nil, at)
	l.add(nil, "c", 0, nil, at) // no metadata: counted alone
	assert.Equal(t, 3, l.messages(), "a, b and c")
	l.take(first)
	assert.Equal(t, 3, l.messages(), "a is still held, under its new ticket")
	l.take(again)
	assert.Equal(t, 2, l.messages())
	l.drain()
	assert.Zero(t, l.messages())
}
