package durable

import (
	"context"
	"fmt"

	"github.com/evolvekit/evolve/durable/internal/damage"
)

// checkDamage compares what an embedded queue's stream holds, now open,
// with what its last clean close recorded, and what NATS says it lost;
// and, if a block file changed since and the loss is not accepted yet,
// reads every message to find those NATS cannot (see damage.Find). A
// loss is an ErrDamaged, which Open returns unless the store accepts it;
// then Damage returns it. The record is forgotten only once the queue
// opens, so that opening again reports the loss again. It runs while the
// queue has no consumer.
func (q *Queue[T]) checkDamage() error {
	ctx := context.Background() // reading every message takes as long as it takes
	subjects := []string{q.items, q.keys + "*", q.items + ".*"}
	rep, lost, err := damage.Find(ctx, q.js, q.stream, q.lastClose, q.items, subjects, !q.acceptLoss)
	if err != nil {
		return fmt.Errorf("%w: %s: %v", ErrStore, q.dir, err)
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
// the next open to compare with (see damage.RecordOf), or nil if the
// state cannot be read.
func (q *Queue[T]) record() *damage.Record {
	ctx, cancel := context.WithTimeout(context.Background(), q.cfg.ConnectTimeout)
	defer cancel()
	rec, _ := damage.RecordOf(ctx, q.stream, q.items)
	return rec
}

// Damage returns what Open found the store had lost, as an ErrDamaged
// naming how many items and at which sequences, for an [Embedded] store
// opened with AcceptLoss; and nil if it lost nothing, or on a [Server].
func (q *Queue[T]) Damage() error { return q.damage }
