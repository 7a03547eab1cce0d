package intake_test

import (
	"context"
	"testing"
	"time"

	"github.com/evolvekit/evolve/durable/internal/confirm"
	"github.com/evolvekit/evolve/durable/internal/embed"
	"github.com/evolvekit/evolve/durable/internal/intake"
	"github.com/evolvekit/evolve/durable/internal/ledger"
	"github.com/evolvekit/evolve/durable/internal/natslog"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A message held twice may be gone from the queue, acknowledged under its
// first delivery: Drained looks up the messages held before it says the
// queue is drained, and counts only those the queue still has.
func TestOnlyTheMessagesStillQueuedCountAsHeld(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	opts := &server.Options{JetStream: true, StoreDir: t.TempDir(), NoLog: true, NoSigs: true, DontListen: true}
	srv, nc, err := embed.Start(opts, &natslog.Log{}, 10*time.Second)
	require.NoError(t, err)
	defer func() {
		nc.Close()
		srv.Shutdown()
		srv.WaitForShutdown()
	}()
	js, err := jetstream.New(nc)
	require.NoError(t, err)
	s, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "q", Subjects: []string{"q.items"}, Retention: jetstream.WorkQueuePolicy})
	require.NoError(t, err)
	c, err := s.CreateOrUpdateConsumer(ctx, jetstream.ConsumerConfig{Durable: "chain", AckPolicy: jetstream.AckExplicitPolicy})
	require.NoError(t, err)
	for _, v := range []string{"a", "b", "c"} {
		_, err := js.Publish(ctx, "q.items", []byte(v))
		require.NoError(t, err)
	}
	batch, err := c.Fetch(3, jetstream.FetchMaxWait(time.Second))
	require.NoError(t, err)
	var msgs []jetstream.Msg
	for m := range batch.Messages() {
		msgs = append(msgs, m)
	}
	require.Len(t, msgs, 3)
	held := ledger.New()
	hold := func(msgs []jetstream.Msg) {
		for _, m := range msgs {
			md, err := m.Metadata()
			require.NoError(t, err)
			held.Add(m, "", md.Sequence.Stream, confirm.Mark{}, time.Now())
		}
	}
	hold(msgs)
	require.NoError(t, msgs[0].DoubleAck(ctx)) // gone from the queue, still held
	kept, err := intake.StillQueued(ctx, s, held)
	require.NoError(t, err)
	assert.Equal(t, 2, kept)
	drained, err := intake.Drained(ctx, s, 2, held)
	require.NoError(t, err)
	assert.True(t, drained, "the queue holds b and c, and so does the ledger")
	// The ledger holds a, gone, and b: as many as the queue holds (b and
	// c), but c waits for nobody here.
	held.Drain()
	hold(msgs[:2])
	drained, err = intake.Drained(ctx, s, 2, held)
	require.NoError(t, err)
	assert.False(t, drained, "a is gone: c waits in the queue, held by nobody here")
}
