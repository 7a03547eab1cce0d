package bench_test

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"testing"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/buffer"
	"github.com/evolvekit/evolve/compose"
	"github.com/evolvekit/evolve/durable"
	"github.com/evolvekit/evolve/parallel"
	"github.com/evolvekit/evolve/rate"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// BenchmarkDurable carries b.N tiny items (ints, keyed "k<i>") through the
// Chain benchmark's chain (rate with no real limit, parallel of 4 computing
// x*2+1, batches of 100) on a durable queue embedded in a directory of its
// own, and beside it the same chain in memory and raw JetStream on the same
// kind of embedded server. One op is one item; each reports items/s.
//
//   - durable: the items are added (AddMany) before the timer starts; the
//     timer runs durable.Consume until the queue is empty, every item
//     acknowledged after its batch reached the sink.
//   - durable-sync: the same with Embedded.Sync: every write synced to the
//     disk.
//   - memory: the chain fed with Post, no queue.
//   - raw: b.N messages published before the timer; the timer runs a pull
//     consumer that fetches them in batches of 256 and acknowledges each.
//   - add: q.AddMany of b.N items, timed.
//   - raw-publish: b.N messages published asynchronously to a stream on
//     the same kind of embedded server, each with a message ID as AddMany
//     gives each item its key, timed until the server acknowledged them.
//   - raw-publish-like: the same messages to a stream and consumer
//     configured as those of a queue with durable.Config's defaults: the
//     stream keeps the items until their window ends, with per-message
//     TTLs, rollups and direct gets allowed, and the consumer the chains
//     share is there. What AddMany is held to: the same work on the
//     server, without evolve.
func BenchmarkDurable(b *testing.B) {
	b.Run("durable", func(b *testing.B) { durableRun(b, false) })
	b.Run("durable-sync", func(b *testing.B) { durableRun(b, true) })
	b.Run("memory", durableMemory)
	b.Run("raw", durableRaw)
	b.Run("add", durableAdd)
	b.Run("raw-publish", durableRawPublish)
	b.Run("raw-publish-like", durableRawPublishLike)
}

// durableEntries returns n entries keyed "k<i>", of values i.
func durableEntries(n int) []durable.Entry[int] {
	e := make([]durable.Entry[int], n)
	for i := range e {
		e[i] = durable.Entry[int]{Key: "k" + strconv.Itoa(i), Value: i}
	}
	return e
}

// durableStages returns the Chain benchmark's three stages, on items.
func durableStages(b *testing.B) agent.Stage[durable.Item[int], []durable.Item[int]] {
	limit, err := rate.Stage(rate.Config[durable.Item[int]]{Rate: math.MaxFloat64, Burst: 1 << 30})
	if err != nil {
		b.Fatal(err)
	}
	work, err := parallel.Stage(parallel.Config{Limit: chainLimit}, durable.Map(func(_ context.Context, x int) (int, error) { return double(x), nil }))
	if err != nil {
		b.Fatal(err)
	}
	batches, err := buffer.Stage(buffer.Config[durable.Item[int]]{Size: chainBatch, MaxWait: time.Millisecond}, nil)
	if err != nil {
		b.Fatal(err)
	}
	return compose.Pipe3(limit, work, batches)
}

// durableRun is one call of BenchmarkDurable/durable, with Embedded.Sync as
// sync says.
func durableRun(b *testing.B, sync bool) {
	ctx := context.Background()
	q, err := durable.Open[int](durable.Embedded{Dir: b.TempDir(), Sync: sync}, durable.Config{})
	if err != nil {
		b.Fatal(err)
	}
	defer q.Close()
	if err := q.AddMany(ctx, durableEntries(b.N)); err != nil {
		b.Fatal(err)
	}
	rt := agent.NewRuntime()
	defer rt.Shutdown(ctx)
	s := newSeen(b.N)
	chain, err := compose.Start(rt, durableStages(b), durable.Batches(q, func(batch []durable.Item[int]) error {
		for _, it := range batch {
			s.mark(odd(it.Value))
		}
		return nil
	}), compose.WithDeadLetters(q.DeadLetters))
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	if err := durable.Consume(ctx, q, chain, durable.WithUntilEmpty()); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "items/s")
	s.check(b)
	if n, err := q.Len(ctx); err != nil || n != 0 {
		b.Fatalf("%d items left in the queue (%v)", n, err)
	}
}

// durableMemory is the same chain in memory: Post, Close, Wait.
func durableMemory(b *testing.B) {
	ctx := context.Background()
	rt := agent.NewRuntime()
	defer rt.Shutdown(ctx)
	s := newSeen(b.N)
	chain, err := compose.Start(rt, durableStages(b), func(batch []durable.Item[int]) {
		for _, it := range batch {
			s.mark(odd(it.Value))
		}
	})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := range b.N {
		if err := chain.Post(ctx, durable.Item[int]{Key: "k" + strconv.Itoa(i), Value: i}); err != nil {
			b.Fatal(err)
		}
	}
	chain.Close()
	if err := chain.Wait(ctx); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "items/s")
	s.check(b)
}

// durableRaw publishes b.N messages to a work-queue stream on an embedded
// server, then, timed, fetches them with a pull consumer, 256 at a time,
// and acknowledges each.
func durableRaw(b *testing.B) {
	ctx := context.Background()
	js := embeddedJetStream(b)
	if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "raw", Subjects: []string{"raw.items"}, Retention: jetstream.WorkQueuePolicy, Storage: jetstream.FileStorage}); err != nil {
		b.Fatal(err)
	}
	cons, err := js.CreateConsumer(ctx, "raw", jetstream.ConsumerConfig{Durable: "raw", AckPolicy: jetstream.AckExplicitPolicy, MaxAckPending: 65536})
	if err != nil {
		b.Fatal(err)
	}
	rawPublish(b, js, b.N, plainMessage)
	s := newSeen(b.N)
	b.ResetTimer()
	for got := 0; got < b.N; {
		batch, err := cons.Fetch(min(256, b.N-got), jetstream.FetchMaxWait(time.Second))
		if err != nil {
			b.Fatal(err)
		}
		for m := range batch.Messages() {
			v, err := strconv.Atoi(string(m.Data()))
			if err != nil {
				b.Fatal(err)
			}
			s.mark(v)
			if err := m.Ack(); err != nil {
				b.Fatal(err)
			}
			got++
		}
	}
	// An acknowledgement is sent without waiting for the server, which
	// then deletes the message: the run ends once it has deleted them all,
	// as durable's ends once the queue is empty.
	stream, err := js.Stream(ctx, "raw")
	if err != nil {
		b.Fatal(err)
	}
	for deadline := time.Now().Add(time.Minute); ; {
		info, err := stream.Info(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if info.State.Msgs == 0 {
			break
		}
		if time.Now().After(deadline) {
			b.Fatalf("%d messages still in the stream a minute after their acknowledgements", info.State.Msgs)
		}
		time.Sleep(time.Millisecond)
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "items/s")
	s.check(b)
}

// rawPublish publishes n messages, message(i) for i from 0 to n-1,
// asynchronously, and waits for the server to acknowledge them. A publish
// with the client's 4,000 unacknowledged waits for room up to ten seconds
// (not the default 200 ms, which a loaded machine overruns).
func rawPublish(b *testing.B, js jetstream.JetStream, n int, message func(i int) *nats.Msg) {
	for i := range n {
		if _, err := js.PublishMsgAsync(message(i), jetstream.WithStallWait(10*time.Second)); err != nil {
			b.Fatal(err)
		}
	}
	select {
	case <-js.PublishAsyncComplete():
	case <-time.After(time.Minute):
		b.Fatal("the publishes were not acknowledged within a minute")
	}
}

// plainMessage returns message i of the raw variants: "<i>" on the
// subject raw.items, with the message ID "k<i>" (as AddMany dedupes items
// by their keys).
func plainMessage(i int) *nats.Msg {
	return &nats.Msg{Subject: "raw.items", Data: strconv.AppendInt(nil, int64(i), 10), Header: nats.Header{nats.MsgIdHdr: {"k" + strconv.Itoa(i)}}}
}

// durableRawPublish times rawPublish of b.N plain messages to a
// work-queue stream on an embedded server.
func durableRawPublish(b *testing.B) {
	js := embeddedJetStream(b)
	if _, err := js.CreateStream(context.Background(), jetstream.StreamConfig{Name: "raw", Subjects: []string{"raw.items"}, Retention: jetstream.WorkQueuePolicy, Storage: jetstream.FileStorage}); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	rawPublish(b, js, b.N, plainMessage)
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "items/s")
}

// durableRawPublishLike times rawPublish of b.N plain messages to a
// stream and consumer configured as those of a queue with durable.Config's
// defaults (no fair keys): what AddMany is measured against.
func durableRawPublishLike(b *testing.B) {
	ctx := context.Background()
	js := embeddedJetStream(b)
	if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "raw", Subjects: []string{"raw.items", "raw.keys.*", "raw.items.*", "raw.moved.*"},
		Retention: jetstream.LimitsPolicy, Storage: jetstream.FileStorage, Duplicates: durable.DefaultDedupe,
		AllowMsgTTL: true, AllowRollup: true, AllowDirect: true}); err != nil {
		b.Fatal(err)
	}
	if _, err := js.CreateOrUpdateConsumer(ctx, "raw", jetstream.ConsumerConfig{Durable: "chain", AckPolicy: jetstream.AckExplicitPolicy,
		AckWait: durable.DefaultLease, MaxDeliver: -1, MaxAckPending: durable.DefaultMaxHeld, FilterSubject: "raw.items"}); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	rawPublish(b, js, b.N, plainMessage)
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "items/s")
}

// durableAdd times q.AddMany of b.N items.
func durableAdd(b *testing.B) {
	ctx := context.Background()
	q, err := durable.Open[int](durable.Embedded{Dir: b.TempDir()}, durable.Config{})
	if err != nil {
		b.Fatal(err)
	}
	defer q.Close()
	entries := durableEntries(b.N)
	b.ResetTimer()
	if err := q.AddMany(ctx, entries); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "items/s")
	if n, err := q.Len(ctx); err != nil || n != b.N {
		b.Fatal(fmt.Errorf("the queue holds %d items, %v; want %d", n, err, b.N))
	}
}
