//go:build !race

package bench_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	pr "github.com/asynkron/protoactor-go/remote"
	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/remote"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

// The kinds of child of BenchmarkRemoteLarge, as childEnv names them
// beside those of remote_child_test.go:
//
//	large-worker ADDR STAGE RESULT
//	                          a worker of the remote stage STAGE at ADDR, of
//	                          largeSlots slots, whose result is the item
//	                          itself (RESULT "item") or its length in 8
//	                          bytes ("length")
//	large-sink                the byte-counting actor of the raw variant
//
// Either prints one line once it is ready, as the other children do.
const (
	largeWorkerChild = "large-worker"
	largeSinkChild   = "large-sink"
)

// largeSlots is the slots of BenchmarkRemoteLarge's worker: one item
// worked on while the next travels.
const largeSlots = 2

// largeRecv is the most bytes the raw variant's sink takes in a gRPC
// message, as a remote node takes by default (NodeConfig.MaxMessage).
const largeRecv = 64 << 20

// init runs the children of BenchmarkRemoteLarge, before TestMain looks
// at childEnv for the others.
func init() {
	args := strings.Fields(os.Getenv(childEnv))
	switch {
	case len(args) == 4 && args[0] == largeWorkerChild:
		os.Exit(exitOf(runLargeWorker(args[1], args[2], args[3])))
	case len(args) == 1 && args[0] == largeSinkChild:
		os.Exit(exitOf(runLargeSink()))
	}
}

// exitOf returns the exit code of a child that ended with err.
func exitOf(err error) int {
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench child:", err)
		return 1
	}
	return 0
}

// runLargeWorker works for the stage at master until the stage finishes,
// on items of bytes as they are: its result is the item itself, or its
// length.
func runLargeWorker(master, stage, result string) error {
	work := func(_ context.Context, in []byte) ([]byte, error) { return in, nil }
	switch result {
	case "item":
	case "length":
		work = func(_ context.Context, in []byte) ([]byte, error) {
			return binary.BigEndian.AppendUint64(nil, uint64(len(in))), nil
		}
	default:
		return fmt.Errorf("large worker: bad result %q", result)
	}
	fmt.Println("ready")
	return remote.Work(context.Background(), remote.WorkerConfig{Master: master, Stage: stage, Slots: largeSlots, Codec: rawBytes{}}, work)
}

// BenchmarkRemoteLarge carries b.N payloads of 5 MB (largeSize) each from
// this process to one worker process; one op is one payload, and each
// variant reports MB/s (b.SetBytes: 10^6 bytes a second).
//
//   - stage-length: a remote stage (remote.New, on a node on the loopback,
//     its codec the bytes as they are, MaxBatch 4) posts each payload to a
//     worker of largeSlots slots, whose result is the payload's length;
//     the sink checks each.
//   - stage-item: the same, the result the payload itself, so 5 MB travel
//     each way; the sink checks each byte for byte.
//   - raw: protoactor alone, as BenchmarkRemoteRaw: Root.Send of each
//     payload as a wrapperspb.BytesValue to an actor of the child that
//     counts their bytes, each envelope alone in its gRPC message (the
//     endpoint writer's batch size 1, as a remote node sets it) and the
//     child's gRPC receive limit 64 MiB (a node's default bound).
//
// The worker is started and registered, or the connection opened, before
// the timer starts; the timer stops once the stage's Wait has returned, or
// the child has said it has every byte.
func BenchmarkRemoteLarge(b *testing.B) {
	data := bytes.Repeat([]byte("0123456789abcdef"), largeSize/16)
	b.Run("stage-length", func(b *testing.B) { largeStageRun(b, data, "length") })
	b.Run("stage-item", func(b *testing.B) { largeStageRun(b, data, "item") })
	b.Run("raw", func(b *testing.B) { largeRawRun(b, data) })
}

// largeStageRun runs one call of BenchmarkRemoteLarge's stage variants,
// the worker's result as result says.
func largeStageRun(b *testing.B, data []byte, result string) {
	node, err := remote.Listen(remote.NodeConfig{})
	if err != nil {
		b.Fatal(err)
	}
	defer node.Close()
	rt := agent.NewRuntime()
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), remoteSetup)
		defer cancel()
		_ = rt.Shutdown(ctx)
	}()
	length := binary.BigEndian.AppendUint64(nil, uint64(len(data)))
	s := newSeen(b.N)
	var bad int
	h, err := remote.New(rt, remote.Config[[]byte]{Node: node, Name: remoteStage, Codec: rawBytes{},
		MaxBatch: 4, Queue: 4, Window: 8},
		func(r remote.Result[[]byte]) {
			want := length
			if result == "item" {
				want = data
			}
			if r.Err != nil || !bytes.Equal(r.Value, want) {
				bad++
				return
			}
			s.mark(int(r.Seq))
		})
	if err != nil {
		b.Fatal(err)
	}
	w := startChild(b, largeWorkerChild, node.Addr(), remoteStage, result)
	awaitLargeWorker(b, h)

	ctx := context.Background()
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for range b.N {
		if err := h.Post(ctx, data); err != nil {
			b.Fatal(err)
		}
	}
	h.Close()
	if err := h.Wait(ctx); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	if bad != 0 {
		b.Fatalf("%d results failed or were not as sent", bad)
	}
	s.check(b)
	if err := w.wait(remoteSetup); err != nil {
		b.Logf("worker: %v", err)
	}
}

// awaitLargeWorker waits, at most remoteSetup, until a worker has
// registered with the master h.
func awaitLargeWorker(b *testing.B, h agent.Handle[[]byte, remote.Status]) {
	b.Helper()
	deadline := time.Now().Add(remoteSetup)
	for {
		st, err := h.Status(context.Background())
		if err != nil {
			b.Fatal(err)
		}
		if len(st.Workers) == 1 {
			return
		}
		if time.Now().After(deadline) {
			b.Fatalf("no worker registered within %v", remoteSetup)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// largeRawRun runs one call of BenchmarkRemoteLarge/raw.
func largeRawRun(b *testing.B, data []byte) {
	sink := startChild(b, largeSinkChild)
	sys, rem := startLargeRemoting()
	defer func() {
		rem.Shutdown(false)
		sys.Shutdown()
	}()
	target := actor.NewPID(sink.line, "sink")
	if _, err := sys.Root.RequestFuture(target, wrapperspb.UInt64(0), remoteSetup).Result(); err != nil {
		b.Fatalf("the sink at %s does not answer: %v", sink.line, err)
	}

	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	want := uint64(b.N) * uint64(len(data))
	answer := sys.Root.RequestFuture(target, wrapperspb.UInt64(want), time.Minute+time.Duration(b.N)*time.Second)
	for range b.N {
		sys.Root.Send(target, wrapperspb.Bytes(data))
	}
	got, err := answer.Result()
	b.StopTimer()
	if err != nil {
		b.Fatalf("the sink did not answer: %v", err)
	}
	if n := got.(*wrapperspb.UInt64Value).Value; n != want {
		b.Fatalf("the sink counted %d of %d bytes", n, want)
	}
	_ = sink.stdin.Close()
	if err := sink.wait(remoteSetup); err != nil {
		b.Errorf("sink: %v", err)
	}
}

// startLargeRemoting starts an actor system with remoting on a free port
// of the loopback, as startRemoting does, each envelope alone in its gRPC
// message and gRPC's receive limit largeRecv.
func startLargeRemoting() (*actor.ActorSystem, *pr.Remote) {
	sys := actor.NewActorSystem(actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger {
		return slog.New(slog.DiscardHandler)
	}))
	rem := pr.NewRemote(sys, pr.Configure("127.0.0.1", 0,
		pr.WithEndpointWriterQueueSize(rawQueue),
		pr.WithEndpointManagerQueueSize(rawQueue),
		pr.WithEndpointWriterBatchSize(1),
		pr.WithServerOptions(grpc.MaxRecvMsgSize(largeRecv))))
	rem.Start()
	return sys, rem
}

// runLargeSink serves the byte-counting actor, named "sink", until its
// standard input ends.
func runLargeSink() error {
	sys, rem := startLargeRemoting()
	if _, err := sys.Root.SpawnNamed(actor.PropsFromProducer(func() actor.Actor { return &largeSink{} }), "sink"); err != nil {
		return err
	}
	fmt.Println(sys.Address())
	_, _ = io.Copy(io.Discard, os.Stdin)
	rem.Shutdown(false)
	sys.Shutdown()
	return nil
}

// largeSink counts the bytes of the BytesValues it is sent. A UInt64Value
// announces how many bytes are coming and starts the count again; once
// that many have come, the sink tells whoever announced them the count.
type largeSink struct {
	want, got uint64
	asker     *actor.PID
}

// Receive implements actor.Actor.
func (s *largeSink) Receive(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case *wrapperspb.UInt64Value:
		s.want, s.got, s.asker = m.Value, 0, ctx.Sender()
	case *wrapperspb.BytesValue:
		s.got += uint64(len(m.Value))
	default:
		return
	}
	if s.asker != nil && s.got == s.want {
		ctx.Send(s.asker, wrapperspb.UInt64(s.got))
		s.asker = nil
	}
}
