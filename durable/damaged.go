package durable

import (
	"context"
	"fmt"

	"github.com/evolvekit/evolve/durable/internal/damage"
)

// checkDamage compares what an embedded queue's stream holds, now open,
// with what its last clean close recorded, and what NATS says it lost;
// and, if a block file changed since and the loss is not accepted yet,
// reads every message to find those NATS cannot (see package damage). A
// loss is an ErrDamaged, which Open returns unless the store accepts it;
// then Damage returns it. The record is forgotten only once the queue
// opens, so that opening again reports the loss again. It runs while the
// queue has no consumer.
func (q *Queue[T]) checkDamage() error {
	ctx := context.Background() // reading every message takes as long as it takes
	now, err := damage.StateOf(ctx, q.stream, q.items)
	if err != nil {
		return fmt.Errorf("%w: %s: reading the state of the queue's stream: %v", ErrStore, q.dir, err)
	}
	rec := q.lastClose
	if rec != nil && (rec.Name != q.cfg.Name || !rec.Made.Equal(q.stream.CachedInfo().Created)) {
		rec = nil
	}
	rep, lost := damage.Compare(rec, now)
	if rec != nil && rec.Changed && !q.acceptLoss {
		items, seqs, err := damage.Unreadable(ctx, q.js, q.cfg.Name, []string{q.items, q.keys + "*", q.items + ".*"}, q.items, now)
		if err != nil {
			return fmt.Errorf("%w: %s: reading the queue's stream: %v", ErrStore, q.dir, err)
		}
		if len(seqs) > 0 {
			rep.Add(items, seqs)
			lost = true
		}
	}
	if lost {
		q.damage = fmt.Errorf("%w: %s: %s%s", ErrDamaged, q.dir, rep, q.log.Suffix())
		if !q.acceptLoss {
			return fmt.Errorf("%w (Embedded.AcceptLoss opens it without them)", q.damage)
		}
	}
	if err := damage.Forget(q.dir); err != nil {
		return fmt.Errorf("%w: %s: %v", ErrStore, q.dir, err)
	}
	return nil
}

// record returns what a clean close leaves beside an embedded store for
// the next open to compare with, but the block files, which only the
// server's shutdown settles; or nil if the state cannot be read.
func (q *Queue[T]) record() *damage.Record {
	ctx, cancel := context.WithTimeout(context.Background(), q.cfg.ConnectTimeout)
	defer cancel()
	st, err := damage.StateOf(ctx, q.stream, q.items)
	if err != nil {
		return nil
	}
	return &damage.Record{Name: q.cfg.Name, Made: q.stream.CachedInfo().Created, Items: st.Items, Msgs: st.Msgs, Held: st.Held}
}

// Damage returns what Open found the store had lost, as an ErrDamaged
// naming how many items and at which sequences, for an [Embedded] store
// opened with AcceptLoss; and nil if it lost nothing, or on a [Server].
func (q *Queue[T]) Damage() error { return q.damage }
