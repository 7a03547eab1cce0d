package durable_test

import (
	"context"
	"errors"
	"math"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/compose"
	"github.com/evolvekit/evolve/durable"
	"github.com/evolvekit/evolve/rate"
	"github.com/nats-io/nats-server/v2/server"
)

// TestBadConfigsAreRefusedByName: each setting out of range, of the
// store or of the queue, gets an ErrConfig naming it, before anything
// starts.
func TestBadConfigsAreRefusedByName(t *testing.T) {
	dir := t.TempDir()
	url := "nats://127.0.0.1:4222"
	for _, c := range []struct {
		store durable.Store
		cfg   durable.Config
		says  string
	}{
		{nil, durable.Config{}, "needs a store"},
		{durable.Embedded{}, durable.Config{}, "needs Dir"},
		{durable.Server{}, durable.Config{}, "needs a URL"},
		{durable.Embedded{Dir: dir}, durable.Config{Name: "a.b"}, "name"},
		{durable.Server{URL: url, Replicas: 6}, durable.Config{}, "replicas must be 1 to 5"},
		{durable.Server{URL: url, Replicas: -1}, durable.Config{}, "replicas must be 1 to 5"},
		{durable.Embedded{Dir: dir}, durable.Config{ConnectTimeout: -time.Second}, "connect timeout"},
		{durable.Embedded{Dir: dir}, durable.Config{Lease: time.Millisecond}, "lease"},
		{durable.Embedded{Dir: dir}, durable.Config{MaxAttempts: -1}, "max attempts"},
		{durable.Embedded{Dir: dir}, durable.Config{Dedupe: -time.Second}, "dedupe"},
		{durable.Embedded{Dir: dir}, durable.Config{MaxHeld: -1}, "max held"},
		{durable.Embedded{Dir: dir}, durable.Config{Quantum: -time.Millisecond}, "quantum"},
		{durable.Embedded{Dir: dir}, durable.Config{Weights: map[string]int{"acme": 2, "tiny co": 0}}, `fair key "tiny co"`},
		{durable.Embedded{Dir: dir, Listen: "0.0.0.0:0"}, durable.Config{}, "off the loopback"},
		{durable.Embedded{Dir: dir, Listen: "127.0.0.1:x"}, durable.Config{}, "port"},
		{durable.Embedded{Dir: dir, Listen: "127.0.0.1"}, durable.Config{}, "listen"},
	} {
		q, err := durable.Open[int](c.store, c.cfg)
		if err == nil {
			q.Close()
		}
		if !errors.Is(err, durable.ErrConfig) || !strings.Contains(err.Error(), c.says) {
			t.Errorf("Open(%+v, %+v) = %v; want an ErrConfig saying %q", c.store, c.cfg, err, c.says)
		}
	}
}

// TestAStoreThatCannotBeWrittenIsRefused: a directory under a regular
// file cannot be made; Open says so with an ErrStore.
func TestAStoreThatCannotBeWrittenIsRefused(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := durable.Open[int](durable.Embedded{Dir: filepath.Join(file, "queue")}, durable.Config{})
	if !errors.Is(err, durable.ErrStore) || !strings.Contains(err.Error(), "file") {
		t.Errorf("Open under a file = %v; want an ErrStore naming the path", err)
	}
}

// TestACorruptStoreIsRefusedOrRecovered: a store whose files are
// overwritten with garbage either fails to open with an ErrStore, or opens
// with what NATS could recover; either way Open returns within its
// timeout and nothing panics.
func TestACorruptStoreIsRefusedOrRecovered(t *testing.T) {
	dir := t.TempDir()
	q, err := durable.Open[int](durable.Embedded{Dir: dir}, durable.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if err := q.AddMany(context.Background(), []durable.Entry[int]{{Key: "a", Value: 1}, {Key: "b", Value: 2}}); err != nil {
		t.Fatal(err)
	}
	q.Close()
	n := 0
	err = filepath.Walk(dir, func(path string, info os.FileInfo, err error) error {
		if err == nil && info.Mode().IsRegular() {
			n++
			return os.WriteFile(path, []byte(strings.Repeat("\xff garbage ", 64)), 0o644)
		}
		return err
	})
	if err != nil || n == 0 {
		t.Fatalf("corrupting %d files: %v", n, err)
	}
	start := time.Now()
	q, err = durable.Open[int](durable.Embedded{Dir: dir}, durable.Config{ConnectTimeout: 2 * time.Second})
	took := time.Since(start)
	if err != nil {
		if !errors.Is(err, durable.ErrStore) {
			t.Errorf("Open of a corrupt store = %v; want an ErrStore", err)
		}
		t.Logf("Open of a corrupt store, after %v: %v", took.Round(time.Millisecond), err)
	} else {
		length, lerr := q.Len(context.Background())
		t.Logf("NATS recovered the corrupt store: %d items (%v)", length, lerr)
		q.Close()
	}
	if took > 10*time.Second {
		t.Errorf("Open of a corrupt store took %v", took)
	}
}

// TestAURLWhereNothingAnswersIsRefusedInTime: Open gives up after its
// ConnectTimeout with an ErrUnreachable naming the URL.
func TestAURLWhereNothingAnswersIsRefusedInTime(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	start := time.Now()
	_, err = durable.Open[int](durable.Server{URL: "nats://" + addr}, durable.Config{ConnectTimeout: time.Second})
	if !errors.Is(err, durable.ErrUnreachable) || !strings.Contains(err.Error(), addr) {
		t.Errorf("Open at a closed port = %v; want an ErrUnreachable naming %s", err, addr)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("Open took %v to give up", took)
	}
}

// TestCredentialsAreRefusedOrTaken runs a NATS server with a user and a
// password: a wrong password gets an ErrUnreachable saying the
// credentials were refused; the right ones open the queue, which takes
// and hands out items.
func TestCredentialsAreRefusedOrTaken(t *testing.T) {
	srv := startServer(t, server.Options{Username: "loader", Password: "s3cret"})
	url := srv.ClientURL()
	_, err := durable.Open[int](durable.Server{URL: url, User: "loader", Password: "wrong"}, durable.Config{ConnectTimeout: 2 * time.Second})
	if !errors.Is(err, durable.ErrUnreachable) || !strings.Contains(err.Error(), "refused the credentials") {
		t.Errorf("Open with a wrong password = %v; want an ErrUnreachable saying the credentials were refused", err)
	}
	if err != nil && strings.Contains(err.Error(), "wrong") {
		t.Errorf("the error shows the password: %v", err)
	}
	q, err := durable.Open[int](durable.Server{URL: url, User: "loader", Password: "s3cret"}, durable.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	ctx := context.Background()
	if err := q.Add(ctx, "one", 1); err != nil {
		t.Fatal(err)
	}
	rt := agent.NewRuntime()
	defer rt.Shutdown(ctx)
	pass, err := rate.Stage(rate.Config[durable.Item[int]]{Rate: 1000, Burst: 10})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	chain, err := compose.Start(rt, pass, durable.Sink(q, func(it durable.Item[int]) error {
		got = append(got, it.Key)
		return nil
	}))
	if err != nil {
		t.Fatal(err)
	}
	run, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := durable.Consume(run, q, chain, durable.WithUntilEmpty()); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0] != "one" {
		t.Errorf("the chain got %v; want [one]", got)
	}
}

// TestBadInputIsRefusedByName: an empty key, a value the codec cannot
// encode, a closed queue, and Consume without a chain or with a fetch of
// none.
func TestBadInputIsRefusedByName(t *testing.T) {
	ctx := context.Background()
	q, err := durable.Open[float64](durable.Embedded{Dir: t.TempDir()}, durable.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if err := q.Add(ctx, "", 1); !errors.Is(err, durable.ErrConfig) || !strings.Contains(err.Error(), "key") {
		t.Errorf("Add with no key = %v; want an ErrConfig about the key", err)
	}
	if err := q.Add(ctx, "nan", math.NaN()); !errors.Is(err, durable.ErrCodec) || !strings.Contains(err.Error(), `"nan"`) {
		t.Errorf("Add(NaN) = %v; want an ErrCodec naming the key", err)
	}
	if err := q.AddMany(ctx, []durable.Entry[float64]{{Key: "ok", Value: 1}, {Key: "inf", Value: math.Inf(1)}}); !errors.Is(err, durable.ErrCodec) || !strings.Contains(err.Error(), `"inf"`) {
		t.Errorf("AddMany with +Inf = %v; want an ErrCodec naming the key", err)
	}
	if err := durable.Consume[float64, compose.Status](ctx, q, nil); !errors.Is(err, durable.ErrConfig) {
		t.Errorf("Consume with no chain = %v; want an ErrConfig", err)
	}
	rt := agent.NewRuntime()
	defer rt.Shutdown(ctx)
	pass, err := rate.Stage(rate.Config[durable.Item[float64]]{Rate: 1000, Burst: 10})
	if err != nil {
		t.Fatal(err)
	}
	chain, err := compose.Start(rt, pass, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := durable.Consume(ctx, q, chain, durable.WithFetchSize(0)); !errors.Is(err, durable.ErrConfig) || !strings.Contains(err.Error(), "fetch") {
		t.Errorf("Consume with WithFetchSize(0) = %v; want an ErrConfig about the fetch size", err)
	}
	chain.Close()
	_ = chain.Wait(ctx)
	q.Close()
	if err := q.Add(ctx, "late", 1); !errors.Is(err, durable.ErrClosed) {
		t.Errorf("Add after Close = %v; want ErrClosed", err)
	}
}

// TestADirectoryInUseIsRefused: a second Open of a directory another
// queue holds gets an ErrStore saying it is in use, rather than a second
// server on the same store; once the first closes, it opens.
func TestADirectoryInUseIsRefused(t *testing.T) {
	dir := t.TempDir()
	q, err := durable.Open[int](durable.Embedded{Dir: dir}, durable.Config{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = durable.Open[int](durable.Embedded{Dir: dir}, durable.Config{})
	if !errors.Is(err, durable.ErrStore) || !strings.Contains(err.Error(), "in use") {
		t.Errorf("a second Open of %s = %v; want an ErrStore saying it is in use", dir, err)
	}
	q.Close()
	q, err = durable.Open[int](durable.Embedded{Dir: dir}, durable.Config{})
	if err != nil {
		t.Fatalf("Open after the first queue closed: %v", err)
	}
	q.Close()
}
