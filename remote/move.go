package remote

import "github.com/evolvekit/evolve/remote/internal/move"

// Move is what work returns, as its error, to ask for its item to go on,
// on a worker that registered with tag ("" for any), with next as its
// input: the state the work reached, which crosses to that worker through
// the stage's codec (never a closure). I must be the stage's item type,
// or the item fails with an error naming both types. The master queues
// the item again for tag, spending none of its attempts; a worker that
// holds tag goes on at once, and a parallel stage running the same work
// in its process (package doc, under Moves). It costs an allocation.
func Move[I any](tag string, next I) error { return &move.Request{Tag: tag, Next: next} }

// ErrMoves is the error, wrapped with the item's path, of an item that
// asked to move more than Config.MaxMoves times.
var ErrMoves = move.ErrMoves

// Result is what a remote stage emits for each item, as a parallel
// agent's parallel.Result: the item's Seq (its place in the input, from
// 0), and its value or the error of its last attempt. Path is nil for an
// item that never moved; for one that did, it holds each step of its
// work in order, the tag it needed and the address of the worker it ran
// on, the first step's tag the item's own: Path[i-1] to Path[i] is a move
// to the worker Path[i].Worker for the tag Path[i].Tag.
type Result[O any] struct {
	Seq   uint64
	Value O
	Err   error
	Path  []struct{ Tag, Worker string }
}
