package damage_test

import (
	"context"
	"testing"
	"time"

	"github.com/evolvekit/evolve/durable/internal/damage"
	"github.com/evolvekit/evolve/durable/internal/embed"
	"github.com/evolvekit/evolve/durable/internal/natslog"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A stream compared with its own record lost nothing; with a record that
// counted more items, it lost the difference; and a record of another
// stream counts as none.
func TestFindComparesWithTheRecordOfTheSameStream(t *testing.T) {
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
	s, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "q", Subjects: []string{"q.items"}})
	require.NoError(t, err)
	for range 3 {
		_, err := js.Publish(ctx, "q.items", []byte("x"))
		require.NoError(t, err)
	}
	rec, err := damage.RecordOf(ctx, s, "q.items")
	require.NoError(t, err)
	assert.Equal(t, uint64(3), rec.Items)
	_, lost, err := damage.Find(ctx, js, s, rec, "q.items", []string{"q.items"}, true)
	require.NoError(t, err)
	assert.False(t, lost, "compared with its own record")

	more := *rec
	more.Items, more.Held = 5, nil
	rep, lost, err := damage.Find(ctx, js, s, &more, "q.items", []string{"q.items"}, true)
	require.NoError(t, err)
	assert.True(t, lost)
	assert.Equal(t, uint64(2), rep.Items)

	more.Name = "other"
	_, lost, err = damage.Find(ctx, js, s, &more, "q.items", []string{"q.items"}, true)
	require.NoError(t, err)
	assert.False(t, lost, "the record of another stream counts as none")
}
