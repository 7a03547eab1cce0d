package durable

import (
	"context"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A message held twice may be gone from the queue, acknowledged under its
// first delivery: Consume looks up the messages held before it says the
// queue is drained, and counts only those the queue still has.
func TestOnlyTheMessagesStillQueuedCountAsHeld(t *testing.T) {
	ctx := context.Background()
	q, err := Open[int](Embedded{Dir: t.TempDir()}, Config{})
	require.NoError(t, err)
	defer q.Close()
	require.NoError(t, q.AddMany(ctx, []Entry[int]{{Key: "a", Value: 1}, {Key: "b", Value: 2}, {Key: "c", Value: 3}}))
	batch, err := q.consumer.Fetch(3, jetstream.FetchMaxWait(time.Second))
	require.NoError(t, err)
	var msgs []jetstream.Msg
	for m := range batch.Messages() {
		msgs = append(msgs, m)
	}
	require.Len(t, msgs, 3)
	for _, m := range msgs {
		md, err := m.Metadata()
		require.NoError(t, err)
		q.ledger.Add(m, "", md.Sequence.Stream, nil, time.Now())
	}
	require.NoError(t, msgs[0].DoubleAck(ctx)) // gone from the queue, still in the ledger
	kept, err := q.stillQueued(ctx)
	require.NoError(t, err)
	assert.Equal(t, 2, kept)
	drained, err := q.drained(ctx)
	require.NoError(t, err)
	assert.True(t, drained, "the queue holds b and c, and the ledger does")
	// The ledger holds a, gone, and b: as many as the queue holds (b and
	// c), but c waits for nobody here.
	q.ledger.Drain()
	for _, m := range msgs[:2] {
		md, err := m.Metadata()
		require.NoError(t, err)
		q.ledger.Add(m, "", md.Sequence.Stream, nil, time.Now())
	}
	drained, err = q.drained(ctx)
	require.NoError(t, err)
	assert.False(t, drained, "a is gone: c waits in the queue, held by nobody here")
}
