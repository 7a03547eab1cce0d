package confirm_test

import (
	"context"
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/evolvekit/evolve/durable/internal/confirm"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// start starts a JetStream server on 127.0.0.1, in a directory of the
// test's, with a stream "s" on subject "s.>"; it ends with the test.
func start(t *testing.T) *server.Server {
	t.Helper()
	srv, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: -1, JetStream: true, StoreDir: t.TempDir(), NoLog: true, NoSigs: true})
	if err != nil {
		t.Fatal(err)
	}
	srv.Start()
	t.Cleanup(func() {
		srv.Shutdown()
		srv.WaitForShutdown()
	})
	if !srv.ReadyForConnections(10 * time.Second) {
		t.Fatal("the server did not start")
	}
	nc := dial(t, srv)
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "s", Subjects: []string{"s.>"}, Duplicates: time.Minute}); err != nil {
		t.Fatal(err)
	}
	return srv
}

// dial returns a connection to srv that does not reconnect; it closes
// with the test.
func dial(t *testing.T, srv *server.Server) *nats.Conn {
	t.Helper()
	nc, err := nats.Connect(srv.ClientURL(), nats.NoReconnect())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	return nc
}

// connect starts a server (see start) and returns a connection to it.
func connect(t *testing.T) *nats.Conn {
	t.Helper()
	return dial(t, start(t))
}

// TestBatchConfirmsEachPublish publishes a run of messages, some of them
// twice by ID and one the stream refuses, and one to a subject no stream
// takes, and checks each answer.
func TestBatchConfirmsEachPublish(t *testing.T) {
	nc := connect(t)
	p, err := confirm.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	b := p.Batch()
	defer b.Close()
	const n = 500
	for i := range n {
		m := nats.NewMsg("s.items")
		m.Header.Set(nats.MsgIdHdr, "k"+strconv.Itoa(i%(n/2)))
		if _, err := b.Publish(m); err != nil {
			t.Fatal(err)
		}
	}
	refused := nats.NewMsg("s.items")
	refused.Header.Set(jetstream.ExpectedLastSubjSeqHeader, "0")
	refused.Header.Set(jetstream.ExpectedLastSubjSeqSubjHeader, "s.items")
	r0, _ := b.Publish(refused)
	lost, _ := b.Publish(nats.NewMsg("elsewhere"))
	ctx := context.Background()
	for i := range n {
		r, err := b.Wait(ctx, i, 10*time.Second)
		if err != nil || !r.Done || r.Err != nil || r.Duplicate != (i >= n/2) {
			t.Fatalf("publish %d: %+v, %v; want stored, duplicate %v", i, r, err, i >= n/2)
		}
	}
	var api *jetstream.APIError
	if r, _ := b.Wait(ctx, r0, 10*time.Second); !errors.As(r.Err, &api) || api.ErrorCode != jetstream.JSErrCodeStreamWrongLastSequence {
		t.Errorf("a publish the stream refused: %+v", r)
	}
	if r, _ := b.Wait(ctx, lost, 10*time.Second); !errors.Is(r.Err, confirm.ErrNoStream) {
		t.Errorf("a publish no stream took: %+v", r)
	}
	if err := b.Mark(0).Wait(time.Second); err != nil {
		t.Errorf("a stored marker: %v", err)
	}
	if err := (confirm.Mark{}).Wait(0); err != nil {
		t.Errorf("a marker not needed: %v", err)
	}
	if err := b.Mark(r0).Wait(time.Second); !errors.As(err, &api) {
		t.Errorf("a marker the stream refused: %v", err)
	}
}

// TestWaitEnds checks that a wait for an answer that does not come ends
// at its timeout, or with its context, with an error, and that a wait
// for a dropped publish is an error at once.
func TestWaitEnds(t *testing.T) {
	nc := connect(t)
	// A subscriber that never answers.
	sub, err := nc.SubscribeSync("mute")
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe()
	p, err := confirm.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	b := p.Batch()
	i, _ := b.Publish(nats.NewMsg("mute"))
	j, _ := b.Publish(nats.NewMsg("mute"))
	if r, err := b.Wait(context.Background(), i, 20*time.Millisecond); r.Done || !errors.Is(err, nats.ErrTimeout) {
		t.Errorf("a wait past its timeout: %+v, %v", r, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if r, err := b.Wait(ctx, j, time.Minute); r.Done || !errors.Is(err, context.Canceled) {
		t.Errorf("a wait whose context ended: %+v, %v", r, err)
	}
	if err := b.Mark(j).Wait(10 * time.Millisecond); !errors.Is(err, nats.ErrTimeout) {
		t.Errorf("a marker never confirmed: %v", err)
	}
	b.Close()
	if r, err := b.Wait(context.Background(), i, time.Minute); r.Done || !errors.Is(err, confirm.ErrDropped) {
		t.Errorf("a wait for a dropped publish: %+v, %v", r, err)
	}
}
