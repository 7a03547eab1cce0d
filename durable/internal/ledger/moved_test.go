package ledger

import (
	"testing"
	"time"

	"github.com/evolvekit/evolve/durable/internal/confirm"
	"github.com/nats-io/nats.go"
	"github.com/stretchr/testify/assert"
)

func TestMovedKeepsTheLastStateOfAHeldItemAndReturnsTheOneItReplaces(t *testing.T) {
	l := New()
	tk := l.Add(nil, "a", 7, confirm.Mark{}, time.Now())
	first, second := nats.Header{"N": {"1"}}, nats.Header{"N": {"2"}}
	prev, ok := l.Moved(tk, first)
	assert.True(t, ok)
	assert.Nil(t, prev, "no state before the first")
	prev, ok = l.Moved(tk, second)
	assert.True(t, ok)
	assert.Equal(t, first, prev, "the second replaces the first")
	seq, ok := l.Seq(tk)
	assert.True(t, ok)
	assert.Equal(t, uint64(7), seq)
	h, ok := l.Take(tk)
	assert.True(t, ok)
	assert.Equal(t, second, h.State, "the hold carries the last state to its acknowledgement")

	prev, ok = l.Moved(tk, first)
	assert.False(t, ok, "an item let go of records nothing")
	assert.Nil(t, prev)
	_, ok = l.Seq(tk)
	assert.False(t, ok)
	_, ok = l.Moved(0, first)
	assert.False(t, ok, "the zero ticket names none")
}
