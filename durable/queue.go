package durable

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/evolvekit/evolve/durable/internal/claim"
	"github.com/evolvekit/evolve/durable/internal/confirm"
	"github.com/evolvekit/evolve/durable/internal/crashes"
	"github.com/evolvekit/evolve/durable/internal/damage"
	"github.com/evolvekit/evolve/durable/internal/fairfetch"
	"github.com/evolvekit/evolve/durable/internal/ledger"
	"github.com/evolvekit/evolve/durable/internal/moved"
	"github.com/evolvekit/evolve/durable/internal/retained"
	"github.com/evolvekit/evolve/durable/internal/sweep"
	"github.com/evolvekit/evolve/durable/internal/traced"

	"github.com/nats-io/nats.go/jetstream"
)

// Queue is a durable queue of items of type T on NATS JetStream: a
// work-queue stream, whose items a process adds with [Queue.Add] and
// chains take with [Consume], from this process or others. [Open] makes
// one; the zero Queue is not usable. Its methods are safe for concurrent
// use.
type Queue[T any] struct {
	site       // where it lives
	cfg        Config
	js         jetstream.JetStream
	confirms   *confirm.Publisher // confirms AddMany's items and key markers (see sealed)
	stream     jetstream.Stream   // the queue's
	deadStream jetstream.Stream   // the dead letters'
	consumer   jetstream.Consumer
	items      string       // the subject items are added on
	keys       string       // the prefix of the subjects of key markers
	moved      string       // the prefix of the subjects of moved states
	resumes    bool         // whether the stream held moved states at Open
	gate       *moved.Gate  // whether it may hold some now
	dead       string       // the subject of the dead letters
	claims     *claim.Store // the items stored apart, in bucket Name + "_payloads"
	inline     int          // the most bytes an item's message carries
	ledger     *ledger.Ledger
	spared     ledger.Spared     // the deliveries handed back for want of workers
	crash      *crashes.Record   // an embedded queue's record of the runs that died, or nil
	pub        *traced.Publisher // traces adds; nil without Config.TracerProvider

	// retain is set for a queue that keeps each item in its stream,
	// acknowledged, until its key's window ends, so that the item is its
	// own key's marker (see Keys in the package doc): one without fair
	// keys, unless its stream was made as a work queue.
	retain  bool
	sweeper *sweep.Sweeper // purges what a queue that retains may let go of

	closed atomic.Bool
}

// Open opens the queue of cfg.Name in store, creating it if it does not
// exist: with [Embedded], a NATS server in this process keeps it in a
// directory; with [Server], the NATS servers at a URL do. It returns an
// ErrConfig for settings out of range, a Server's Replicas more than its
// servers can keep, or a Creds file that cannot be read or holds no
// seed; an ErrStore for a directory that cannot be written or whose store
// cannot be opened; an ErrDamaged for an embedded store that lost items
// since its last Close (see A damaged store in the package doc); and an
// ErrUnreachable for servers that do not answer within cfg.ConnectTimeout
// or refuse the credentials.
//
// An embedded queue that opens hands out again at once the items a
// process held when it died (a crash of this process killed its server
// too): its consumer starts again from the first item not acknowledged.
// On a Server they come back as their lease ends. An embedded queue also
// keeps, beside its store, a record of the runs that died, so that an
// item that kills its process every time goes to the dead letters.
func Open[T any](store Store, cfg Config) (*Queue[T], error) {
	if store == nil {
		return nil, invalid("a queue needs a store: Embedded or Server")
	}
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	s, err := store.open(cfg.ConnectTimeout)
	if err != nil {
		return nil, err
	}
	q := &Queue[T]{site: *s, cfg: cfg, items: cfg.Name + ".items", keys: cfg.Name + ".keys.", moved: cfg.Name + ".moved.", dead: cfg.Name + ".dead", ledger: ledger.New()}
	q.pub = traced.New(cfg.TracerProvider, q.items)
	if q.inline, err = claim.Inline(q.nc.MaxPayload(), cfg.MaxInline); err != nil {
		q.shut()
		return nil, invalid("%v", err)
	}
	if err := q.declare(); err != nil {
		q.shut()
		return nil, err
	}
	if q.srv != nil {
		info := q.stream.CachedInfo()
		first := info.State.FirstSeq
		if q.retain {
			first = q.consumer.CachedInfo().AckFloor.Stream + 1
		}
		if q.crash, err = crashes.Open(q.dir, info.Created, first); err != nil {
			q.shut()
			return nil, fmt.Errorf("%w: %s: %v", ErrStore, q.dir, err)
		}
	}
	if q.retain {
		q.sweeper = sweep.Start(sweep.Config{Consumer: q.consumer, Stream: q.stream, Subject: q.items,
			Window: q.cfg.Dedupe, Timeout: q.cfg.ConnectTimeout, Written: q.crash.Prune})
	}
	return q, nil
}

// Len returns the number of items in the queue: added and not yet
// acknowledged (those chains hold included) nor sent to the dead letters.
// It counts the items its consumer has not handed out and those handed
// out and not acknowledged (with fair keys, what the queue's stream
// holds); an acknowledgement counts a moment after it was confirmed, so
// Len may count its item for that moment: it may be high, never low. (On
// a cluster, a replica a moment behind the leader may count the items not
// handed out: those just added may be missed for that moment.)
func (q *Queue[T]) Len(ctx context.Context) (int, error) {
	if q.retain {
		return retained.Len(ctx, q.nc, q.consumer, q.cfg.Name, q.items)
	}
	counts, err := fairfetch.Count(ctx, q.stream, q.items)
	if err != nil {
		return 0, err
	}
	return fairfetch.Total(counts), nil
}

// URL returns the address other processes reach the queue at: the
// embedded server's client URL when it listens (Embedded.Listen), the
// Server's URL, and "" for an embedded server that listens on no port.
func (q *Queue[T]) URL() string { return q.url }

// Name returns the queue's name.
func (q *Queue[T]) Name() string { return q.cfg.Name }

// Close hands back to the queue the items this process still holds, then
// closes the connection, and stops the embedded server, if any, recording
// beside its store what it holds (see A damaged store in the package
// doc). Calling it again does nothing.
func (q *Queue[T]) Close() error {
	if q.closed.Swap(true) {
		return nil
	}
	for _, h := range q.ledger.Drain() {
		_ = h.Msg.Nak()
	}
	var rec *damage.Record
	if q.srv != nil {
		rec = q.record()
	}
	q.crash.Close(true)
	q.shut()
	if rec != nil {
		// A record that cannot be written only leaves the next open less
		// to compare with.
		if blocks, err := damage.Blocks(q.dir, q.cfg.Name); err == nil {
			rec.Blocks = blocks
			_ = rec.Write(q.dir)
		}
	}
	return nil
}

// shut lets go of the record of this run, without removing it, and of
// the store.
func (q *Queue[T]) shut() {
	q.sweeper.Stop()
	q.crash.Close(false)
	q.site.close()
}
