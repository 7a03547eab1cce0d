package durable

import (
	"context"
	"fmt"

	"github.com/evolvekit/evolve/durable/internal/damage"
	"github.com/nats-io/nats.go/jetstream"
)

// maxDeleted bounds the gaps in a stream whose sequences Open and Close
// list, to say which were lost: the servers list each gap.
const maxDeleted = 50_000

// checkDamage compares what an embedded queue's stream holds, now open,
// with what its last clean close recorded, and what NATS says it lost (see
// package damage). A loss is an ErrDamaged, which Open returns unless the
// store accepts it; then Damage returns it. The record is forgotten only
// once the queue opens, so that opening again reports the loss again.
func (q *Queue[T]) checkDamage() error {
	ctx, cancel := context.WithTimeout(context.Background(), q.cfg.ConnectTimeout)
	defer cancel()
	now, err := q.state(ctx)
	if err != nil {
		return fmt.Errorf("%w: %s: reading the state of the queue's stream: %v", ErrStore, q.dir, err)
	}
	rec := q.lastClose
	if rec != nil && (rec.Name != q.cfg.Name || !rec.Made.Equal(q.stream.CachedInfo().Created)) {
		rec = nil
	}
	if rep, lost := damage.Compare(rec, now); lost {
		q.damage = fmt.Errorf("%w: %s: %s%s (Embedded.AcceptLoss opens it without them)", ErrDamaged, q.dir, rep, q.log.Suffix())
		if !q.acceptLoss {
			return q.damage
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
	st, err := q.state(ctx)
	if err != nil {
		return nil
	}
	return &damage.Record{Name: q.cfg.Name, Made: q.stream.CachedInfo().Created, Items: st.Items, Msgs: st.Msgs, Held: st.Held}
}

// state returns what the queue's stream holds: its items and messages,
// the sequences it holds (unless it has more than maxDeleted gaps), and
// those NATS says it lost.
func (q *Queue[T]) state(ctx context.Context) (damage.State, error) {
	info, err := q.stream.Info(ctx)
	if err != nil {
		return damage.State{}, err
	}
	listed := info.State.NumDeleted <= maxDeleted
	if info, err = q.stream.Info(ctx, jetstream.WithSubjectFilter(q.items), jetstream.WithDeletedDetails(listed)); err != nil {
		return damage.State{}, err
	}
	st := damage.State{Items: info.State.Subjects[q.items], Msgs: info.State.Msgs}
	if listed {
		st.Held = damage.Held(info.State.FirstSeq, info.State.LastSeq, info.State.Deleted)
	}
	if info.State.Lost != nil {
		st.Lost = info.State.Lost.Msgs
	}
	return st, nil
}

// Damage returns what Open found the store had lost, as an ErrDamaged
// naming how many items and at which sequences, for an [Embedded] store
// opened with AcceptLoss; and nil if it lost nothing, or on a [Server].
func (q *Queue[T]) Damage() error { return q.damage }
