package durable

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/compose"
	"github.com/evolvekit/evolve/durable/internal/claim"
	"github.com/evolvekit/evolve/durable/internal/confirm"
	"github.com/evolvekit/evolve/durable/internal/fairfetch"
	"github.com/evolvekit/evolve/durable/internal/intake"
	"github.com/evolvekit/evolve/durable/internal/layout"
	"github.com/evolvekit/evolve/durable/internal/ledger"
	"github.com/evolvekit/evolve/durable/internal/retained"
	"github.com/evolvekit/evolve/durable/internal/traced"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Consume feeds the chain h with the items of q, each as an [Item] whose
// ticket the chain's sink ([Sink], [Batches]) or dead letters
// ([Queue.DeadLetters]) acknowledges, until ctx ends or, with
// [WithUntilEmpty], the queue is empty. It posts with backpressure: it
// takes from the queue only what the chain accepts, so what a process
// holds is bounded by the chain's Bound and one fetch (with fair keys,
// their lines too). With Config.Key, it takes the fair keys' items in
// turns (see Fair keys in the package doc). While it runs, it renews the
// lease of every item the process holds, however long the chain keeps it.
// Then it closes h, waits for it to drain, hands back to the queue
// whatever the chain did not acknowledge, and returns h's error, joined
// with its own.
//
// The chain must block its Post when full (compose.Block, the default):
// one whose overflow policy drops or fails items is refused with an
// ErrConfig (see Drops in the package doc). An item handed out more than
// Config.MaxAttempts times, or whose bytes the codec cannot decode, goes
// to the dead letters without entering the chain.
//
// Errors of the queue's servers, such as a cluster's while it elects a
// new leader, are waited out: Consume asks again, and returns the error
// only once they have lasted more than 30 seconds.
func Consume[T, S any](ctx context.Context, q *Queue[T], h agent.Handle[Item[T], S], opts ...Option) error {
	o := options{fetch: DefaultFetch}
	for _, f := range opts {
		f(&o)
	}
	if o.fetch < 1 {
		return invalid("fetch size must be at least 1, got %d", o.fetch)
	}
	if h == nil {
		return invalid("Consume needs a chain")
	}
	if q.closed.Load() {
		return ErrClosed
	}
	if err := blocks(ctx, h); err != nil {
		return err
	}
	leases := &fairfetch.Leases{}
	// What it fetches is held in leases until it is let go of: with fair
	// keys, by a Fetcher, which holds at most a fetch of items fetched and
	// not handed out; otherwise, in the stream's order.
	src, fetcher, err := fairfetch.Open(fairfetch.Config{JS: q.js, Stream: q.stream, Items: q.items, Plain: q.consumer,
		Consumer: layout.Consumer(q.items, q.cfg.Lease, q.cfg.MaxHeld, q.replicas), Weights: q.cfg.Weights, Quantum: q.cfg.Quantum, Budget: o.fetch, Timeout: q.cfg.ConnectTimeout, Leases: leases}, q.cfg.Key != nil)
	if err != nil {
		return invalid("%v", err)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	// The ledger first: a message it renews is not due with the leases.
	wg.Go(func() { intake.Renew(stop, q.cfg.Lease, q.ledger.Due, leases.Due) })
	feedErr := intake.Run(ctx, (&feeder[T, S]{q: q, h: h, o: o, src: src, marks: map[string]uint64{}}).step)
	if fetcher != nil {
		fetcher.Drain() // what it fetched and did not hand out goes back
	}
	h.Close()
	waitErr := h.Wait(context.WithoutCancel(ctx))
	close(stop)
	wg.Wait()
	// What the chain did not acknowledge (failed without dead letters, or
	// dropped) goes back at once.
	for _, left := range q.ledger.Drain() {
		_ = left.Msg.Nak()
	}
	if feedErr != nil && errors.Is(feedErr, ctx.Err()) {
		feedErr = nil // the ordinary end of a chain that runs until told
	}
	return errors.Join(feedErr, waitErr)
}

// feeder takes items from a queue and posts them to a chain, for one
// Consume: its methods read the queue, the chain and the options from it,
// and the source of its items (fair keys' turns, or the stream's order),
// and keep between fetches room for the messages of one, their metadata,
// and how long the next waits for items. It is used by one goroutine.
type feeder[T, S any] struct {
	q     *Queue[T]
	h     agent.Handle[Item[T], S]
	o     options
	src   fairfetch.Source
	marks map[string]uint64 // by fair key's token, the highest sequence fetched
	msgs  []jetstream.Msg
	mds   []*jetstream.MsgMetadata
	seals []confirm.Mark // the confirmations of the fetch's markers
	waits intake.Waits
}

// step takes what is ready of the queue and posts it; when nothing is,
// it reports with o.untilEmpty whether the run is over, and otherwise
// waits for the next item a while.
func (f *feeder[T, S]) step(ctx context.Context) (bool, error) {
	got, err := f.fetch(ctx, f.o.fetch, 0)
	if err != nil || got > 0 {
		f.waits.Came()
		return false, err
	}
	if f.o.untilEmpty {
		// The queue holds no more than the chain does.
		if over, err := f.q.drained(ctx); err != nil || over {
			return over, err
		}
	}
	got, err = f.fetch(ctx, 1, f.waits.Next())
	if got > 0 {
		f.waits.Came()
	}
	return false, err
}

// drained reports whether q holds nothing but what this process holds
// (see intake.Drained).
func (q *Queue[T]) drained(ctx context.Context) (bool, error) {
	// A request the servers lost, as a cluster changes leaders, would wait
	// as long as ctx does: it is asked again instead.
	ask, cancel := context.WithTimeout(ctx, q.cfg.ConnectTimeout)
	defer cancel()
	n, err := q.Len(ask)
	over := err == nil && q.retain && n <= q.ledger.Messages()
	if err == nil && !q.retain {
		over, err = intake.Drained(ask, q.stream, n, q.ledger)
	}
	switch {
	case err == nil:
		return over, nil
	case ctx.Err() != nil:
		return false, ctx.Err()
	}
	return false, intake.Unavailable{Err: fmt.Errorf("durable: reading the length of queue %s: %w", q.cfg.Name, err)}
}

// fetch takes up to n items from the queue, those ready now if wait is 0
// and otherwise waiting at most wait for them, posts them to the chain,
// and returns how many it took.
func (f *feeder[T, S]) fetch(ctx context.Context, n int, wait time.Duration) (int, error) {
	q := f.q
	msgs, takeErr := f.src.Take(ctx, f.msgs[:0], n, wait)
	// The batch is taken whole before the chain gets any of it, so that
	// its keys' markers are on their way, and an embedded queue records
	// once for all of it how far this run has handed out items (see
	// package crashes).
	mds, all := f.mds[:0], msgs
	clear(f.marks)
	msgs = msgs[:0]
	for _, msg := range all {
		md, err := msg.Metadata()
		if err == nil && q.crash.Done(md.Sequence.Stream) {
			// Acknowledged by a run that died before the server wrote it
			// (see package crashes): acknowledged again, not worked.
			_ = msg.Ack()
			continue
		}
		msgs = append(msgs, msg)
		if k := fairfetch.TokenOf(q.items, msg.Subject()); err == nil {
			f.marks[k] = max(f.marks[k], md.Sequence.Stream)
		}
		mds = append(mds, md)
	}
	seals, err := q.mark(f.seals[:0], msgs, mds)
	defer func() {
		clear(all)
		clear(mds)
		clear(seals)
		f.msgs, f.mds, f.seals = msgs[:0], mds[:0], seals[:0]
	}()
	if err == nil {
		if err = q.crash.HandOutOf(f.marks); err != nil {
			err = fmt.Errorf("%w: %s: %v", ErrStore, q.dir, err)
		}
	}
	if err != nil {
		for _, m := range msgs {
			_ = m.Nak()
		}
		return 0, err
	}
	for i, msg := range msgs {
		if err := f.post(ctx, msg, mds[i], seals[i]); err != nil {
			// Hand back what this fetch brought and was not posted.
			for _, rest := range msgs[i+1:] {
				_ = rest.Nak()
			}
			return i + 1, err
		}
	}
	return len(msgs), q.fetchErr(ctx, takeErr)
}

// fetchErr returns the error of a fetch that failed with err, if any.
func (q *Queue[T]) fetchErr(ctx context.Context, err error) error {
	switch {
	case err == nil:
		return nil
	case ctx.Err() != nil:
		return ctx.Err()
	case errors.Is(err, nats.ErrConnectionClosed) || q.closed.Load():
		return ErrClosed
	}
	return intake.Unavailable{Err: fmt.Errorf("durable: fetching from queue %s: %w", q.cfg.Name, err)}
}

// post decodes msg, whose metadata is md (nil if it has none) and the
// confirmation of whose marker is mark, and posts it to the chain as an
// Item, holding it in the ledger; an item past its attempts, or that
// cannot be decoded, goes to the dead letters instead. An error means the
// chain takes no more: msg was handed back.
func (f *feeder[T, S]) post(ctx context.Context, msg jetstream.Msg, md *jetstream.MsgMetadata, mark confirm.Mark) error {
	q := f.q
	key := msg.Headers().Get(nats.MsgIdHdr)
	var seq uint64
	if md != nil {
		seq = md.Sequence.Stream
	}
	t := q.ledger.Add(msg, key, seq, mark, time.Now())
	it := Item[T]{Key: key, Ticket: uint64(t)}
	if md != nil {
		// Handed out this many times by this queue's consumer, and killed
		// this many processes (see package crashes).
		killed := q.crash.Killed(md.Sequence.Stream)
		if n := q.attempts(md); n > q.cfg.MaxAttempts {
			hd, _ := q.ledger.Take(t)
			why := fmt.Errorf("handed out %d times, more than the %d attempts allowed", n, q.cfg.MaxAttempts)
			if killed > 0 {
				why = fmt.Errorf("%w (%d of them killed the process that worked on it alone)", why, killed)
			}
			q.bury(hd, why, n-1)
			return nil
		}
		if q.crash.Suspects() {
			it.iso, it.seq, it.fair = q.crash, md.Sequence.Stream, fairfetch.TokenOf(q.items, msg.Subject())
		}
	}
	h, data, err := q.resume(ctx, t, &it, msg, md)
	if err == nil {
		data, err = q.claims.Load(ctx, key, h, data)
	}
	if err != nil {
		return q.unloaded(ctx, t, seq, err)
	}
	if err := q.cfg.Codec.Decode(data, &it.Value); err != nil {
		hd, _ := q.ledger.Take(t)
		q.bury(hd, fmt.Errorf("%w: decoding: %v", ErrCodec, err), 0)
		return nil
	}
	err = f.h.Post(traced.Extract(ctx, msg.Headers()), it)
	if err == nil {
		return nil
	}
	hd, ok := q.ledger.Take(t)
	if ctx.Err() != nil || errors.Is(err, agent.ErrClosed) || errors.Is(err, agent.ErrStopped) {
		if ok {
			_ = hd.Msg.Nak()
		}
		return err
	}
	// The chain refused this one item (a check it makes of each): it
	// would refuse it again.
	if ok {
		q.bury(hd, err, 0)
	}
	return nil
}

// unloaded lets go of the item of ticket t and sequence seq, whose bytes
// stored apart could not be read, with err: for good (see package claim),
// it goes to the dead letters, unless its message is gone, or at or
// below the acknowledgement floor of a queue that retains its items:
// acknowledged by a process that held it before this one, which deleted
// its object (one above the floor goes to the dead letters);
// otherwise it goes back to the queue, and so does any item if ctx ended.
func (q *Queue[T]) unloaded(ctx context.Context, t ledger.Ticket, seq uint64, err error) error {
	hd, ok := q.ledger.Take(t)
	switch {
	case !ok:
	case ctx.Err() != nil:
		_ = hd.Msg.Nak()
		return ctx.Err()
	case errors.Is(err, claim.ErrMissing) && seq > 0 && (!q.retain && claim.Gone(ctx, q.stream, seq) || q.retain && retained.Acked(ctx, q.consumer, seq)):
	case errors.Is(err, claim.ErrRef), errors.Is(err, claim.ErrMissing), errors.Is(err, claim.ErrDigest):
		q.bury(hd, fmt.Errorf("durable: %w", err), 0)
	default:
		_ = hd.Msg.NakWithDelay(intake.Backoff(1))
	}
	return nil
}

// blocks returns an ErrConfig if h is a chain whose overflow policy drops
// or fails items instead of blocking.
func blocks[T, S any](ctx context.Context, h agent.Handle[Item[T], S]) error {
	st, err := h.Status(ctx)
	if err != nil {
		return fmt.Errorf("durable: reading the chain's status: %w", err)
	}
	if cs, ok := any(st).(compose.Status); ok && cs.Overflow != compose.Block {
		return invalid("chain %s has overflow policy %s: a durable item it dropped or refused would be neither done nor handed back; use compose.Block, the default", cs.Name, cs.Overflow)
	}
	return nil
}
