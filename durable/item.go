package durable

import (
	"context"

	"github.com/evolvekit/evolve/durable/internal/crashes"
	"github.com/evolvekit/evolve/durable/internal/moved"
)

// Item is an item of a queue as a chain carries it: its key, its value,
// and the ticket that acknowledges it once what came of it has reached
// the sink. Work on items keeps the ticket with what it makes of them:
// [Map] lifts work on values to work on items.
type Item[T any] struct {
	// Key is the key the item was added with.
	Key string
	// Value is the item.
	Value T
	// Ticket acknowledges the item, to the process that took it from the
	// queue; it crosses a remote stage's wire with the value. It names the
	// item until the item is acknowledged, sent to the dead letters or
	// handed back, and means nothing to another process, or to the same
	// one once the item is let go: a ticket that names no item it holds is
	// ignored. The zero Ticket names none.
	Ticket uint64
	// Tag and Moves are the tag and count of the moves of an item handed
	// out again with a moved state ([Queue.Moved]); "" and 0 otherwise.
	Tag   string
	Moves int

	// iso, in a run after a crash, runs the work on the item alone if it
	// is a suspect (see package crashes); seq is its sequence in the
	// stream, and fair the token of its fair key. They stay in the
	// process: a remote stage's wire does not carry them.
	iso  *crashes.Record
	seq  uint64
	fair string
}

// ticketed is an Item of any type, as dead letters carry it.
type ticketed interface{ ticket() uint64 }

func (it Item[T]) ticket() uint64 { return it.Ticket }

// Map lifts f, work on values, to work on items: the result keeps the
// item's key and ticket. Its result fits parallel.Stage, adaptive.Stage
// and remote.Work alike.
//
// After a crash of a process that held items of an embedded queue, Map
// runs f on each of those items alone, with no other work of the
// process's Map running beside it, so that an item that kills its process
// is known and spends an attempt (see the package doc).
func Map[T, U any](f func(context.Context, T) (U, error)) func(context.Context, Item[T]) (Item[U], error) {
	return func(ctx context.Context, in Item[T]) (Item[U], error) {
		var v U
		var err error
		if in.iso != nil {
			in.iso.WorkOf(in.fair, in.seq, func() { v, err = f(ctx, in.Value) })
		} else {
			v, err = f(ctx, in.Value)
		}
		err = moved.Lift(err, func(next T, tag string) any {
			return Item[T]{Key: in.Key, Value: next, Ticket: in.Ticket, Tag: tag, Moves: in.Moves, iso: in.iso, seq: in.seq, fair: in.fair}
		})
		return Item[U]{Key: in.Key, Value: v, Ticket: in.Ticket, Tag: in.Tag, Moves: in.Moves, iso: in.iso, seq: in.seq, fair: in.fair}, err
	}
}
