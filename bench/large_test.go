package bench_test

import (
	"bytes"
	"context"
	"errors"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/compose"
	"github.com/evolvekit/evolve/durable"
	"github.com/evolvekit/evolve/parallel"
	"github.com/nats-io/nats.go/jetstream"
)

// largeSize is the size of BenchmarkLarge's payloads: five times what a
// message of NATS carries by default.
const largeSize = 5 << 20

// BenchmarkLarge carries b.N payloads of 5 MB each; one op is one payload,
// and each variant reports MB/s (b.SetBytes: 10^6 bytes a second).
//
//   - durable: a durable queue embedded in a directory of its own, whose
//     codec passes the bytes as they are; timed: Add of each payload (stored
//     apart, in the queue's Object Store bucket), then durable.Consume with
//     a parallel stage of 2 and a Sink that checks each payload's length,
//     until the queue is empty: every payload read back, checked against
//     its SHA-256, acknowledged and deleted.
//   - objectstore: the NATS client alone on the same kind of embedded
//     server: timed, PutBytes of each payload to a bucket, then GetBytes and
//     Delete of each.
func BenchmarkLarge(b *testing.B) {
	data := bytes.Repeat([]byte("0123456789abcdef"), largeSize/16)
	b.Run("durable", func(b *testing.B) { largeDurable(b, data) })
	b.Run("objectstore", func(b *testing.B) { largeObjectStore(b, data) })
}

// rawBytes is a codec of []byte that passes the bytes as they are.
type rawBytes struct{}

func (rawBytes) Append(dst []byte, v any) ([]byte, error) {
	p, ok := v.(*[]byte)
	if !ok {
		return nil, errors.New("rawBytes: not a []byte")
	}
	return append(dst, *p...), nil
}

func (rawBytes) Decode(data []byte, v any) error {
	p, ok := v.(*[]byte)
	if !ok {
		return errors.New("rawBytes: not a []byte")
	}
	*p = data
	return nil
}

// largeDurable is BenchmarkLarge/durable.
func largeDurable(b *testing.B, data []byte) {
	ctx := context.Background()
	q, err := durable.Open[[]byte](durable.Embedded{Dir: b.TempDir()}, durable.Config{Codec: rawBytes{}})
	if err != nil {
		b.Fatal(err)
	}
	defer q.Close()
	rt := agent.NewRuntime()
	defer rt.Shutdown(ctx)
	work, err := parallel.Stage(parallel.Config{Limit: 2}, durable.Map(func(_ context.Context, v []byte) (int, error) { return len(v), nil }))
	if err != nil {
		b.Fatal(err)
	}
	var seen atomic.Int64
	chain, err := compose.Start(rt, work, durable.Sink(q, func(it durable.Item[int]) error {
		if it.Value != largeSize {
			b.Errorf("item %s came back with %d bytes", it.Key, it.Value)
		}
		seen.Add(1)
		return nil
	}), compose.WithDeadLetters(q.DeadLetters))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(largeSize)
	b.ResetTimer()
	for i := range b.N {
		if err := q.Add(ctx, "k"+strconv.Itoa(i), data); err != nil {
			b.Fatal(err)
		}
	}
	if err := durable.Consume(ctx, q, chain, durable.WithUntilEmpty()); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	if n := seen.Load(); n != int64(b.N) {
		b.Fatalf("the sink saw %d payloads; want %d", n, b.N)
	}
	if n, err := q.DeadLen(ctx); err != nil || n != 0 {
		b.Fatalf("%d dead letters (%v)", n, err)
	}
}

// largeObjectStore is BenchmarkLarge/objectstore.
func largeObjectStore(b *testing.B, data []byte) {
	ctx := context.Background()
	js := embeddedJetStream(b)
	obs, err := js.CreateObjectStore(ctx, jetstream.ObjectStoreConfig{Bucket: "large", Storage: jetstream.FileStorage})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(largeSize)
	b.ResetTimer()
	for i := range b.N {
		if _, err := obs.PutBytes(ctx, "k"+strconv.Itoa(i), data); err != nil {
			b.Fatal(err)
		}
	}
	for i := range b.N {
		got, err := obs.GetBytes(ctx, "k"+strconv.Itoa(i))
		if err != nil {
			b.Fatal(err)
		}
		if len(got) != largeSize {
			b.Fatalf("object %d came back with %d bytes", i, len(got))
		}
		if err := obs.Delete(ctx, "k"+strconv.Itoa(i)); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
}
