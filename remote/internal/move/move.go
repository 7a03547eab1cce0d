// Package move holds what a remote stage's work hands over when it asks
// to go on elsewhere: a [Request] for a tag, with the item's next input as
// a value (its state, which crosses to the next worker through the
// stage's codec, never a closure); the [Step]s of an item's path; and the
// bounds a master holds every worker's moves to, whatever they send: the
// hops an item may make, the length of a tag, the tags moves may make.
// Package remote's doc, under Moves, says what a move does.
package move

import (
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/evolvekit/evolve/internal/moves"
)

// Step is one step of an item's work: the tag it needed ("" for none) and
// the address of the worker it ran on. It is an alias of an unnamed
// struct, so that package remote's Result holds the same type.
type Step = struct{ Tag, Worker string }

// Request is the error work returns to ask for its item to go on, with
// Next as its input, on a worker that holds Tag. package remote's Move
// makes it.
type Request struct {
	Tag  string
	Next any
}

// Error says what r asks for: work that returns r from a stage that runs
// no moves fails with this text.
func (r *Request) Error() string {
	return fmt.Sprintf("remote: a move to a worker with tag %q", r.Tag)
}

// MoveTo returns the tag and the next input r asks for: it makes r a
// moves.Mover, which a parallel stage, running the same work in one
// process, goes on with.
func (r *Request) MoveTo() (tag string, next any) { return r.Tag, r.Next }

// Of returns the move err is or wraps, the outermost, as a Request, or
// nil: any moves.Mover counts, such as a durable queue's work on values
// makes of a Request to carry its item along.
func Of(err error) *Request {
	// Most work returns no error: the Mover that moves.Of asks errors.As
	// to fill escapes to the heap, an allocation a task, only once there
	// is one.
	if err == nil {
		return nil
	}
	m, ok := moves.Of(err)
	if !ok {
		return nil
	}
	if r, ok := m.(*Request); ok {
		return r
	}
	tag, next := m.MoveTo()
	return &Request{Tag: tag, Next: next}
}

// Next returns r's next input as an I, or an error naming item seq, the
// type r holds and I, when it holds another type.
func Next[I any](r *Request, seq uint64) (I, error) {
	v, ok := r.Next.(I)
	if !ok {
		return v, fmt.Errorf("remote: item %d moves to tag %q with a next input of type %s, but the stage's items are of type %s",
			seq, r.Tag, typeName(r.Next), reflect.TypeFor[I]())
	}
	return v, nil
}

// typeName names the dynamic type of v, "nil" for none.
func typeName(v any) string {
	if v == nil {
		return "nil"
	}
	return reflect.TypeOf(v).String()
}

// The bounds of moves.
const (
	// DefaultLimit is the hops an item may make by default.
	DefaultLimit = 16
	// MaxTag is the longest tag, in bytes, a move may name: a worker's
	// message that names a longer one is refused.
	MaxTag = 256
	// MaxLines is the most tags a stage keeps lines for: a move to a tag
	// it has no line for once it has that many fails the item.
	MaxLines = 1024
)

// ErrMoves is what an item that moved more than its stage's limit fails
// with, wrapped in an error that names its path.
var ErrMoves = errors.New("remote: the item moved too many times")

// CheckTag returns an error if a move may not name tag.
func CheckTag(tag string) error {
	if len(tag) > MaxTag {
		return fmt.Errorf("remote: a move's tag of %d bytes, past %d", len(tag), MaxTag)
	}
	return nil
}

// Extend returns path with one step on worker for each of tags, in
// order, in memory of its own (path is left as it was, so that two copies
// of a book never share a path's array), and at most most steps long: a
// path longer than that has failed the item already.
func Extend(path []Step, most int, worker string, tags ...string) []Step {
	n := min(len(path)+len(tags), max(most, len(path)))
	out := make([]Step, len(path), n)
	copy(out, path)
	for _, tag := range tags {
		if len(out) == n {
			break
		}
		out = append(out, Step{Tag: tag, Worker: worker})
	}
	return out
}

// Prior returns the moves item v made before its stage took it, by
// movesOf (nil: none), and none for a count below zero.
func Prior[I any](movesOf func(I) int, v I) int {
	if movesOf == nil {
		return 0
	}
	return max(0, movesOf(v))
}

// Error returns the error of item seq, whose path is path, which moved
// more than limit times: it wraps ErrMoves and names the path.
func Error(seq uint64, path []Step, limit int) error {
	return fmt.Errorf("remote: item %d moved more than %d times, along %s: %w", seq, limit, Format(path), ErrMoves)
}

// LinesError returns the error of item seq, which moved to tag, a tag its
// stage keeps no line for, once it keeps MaxLines.
func LinesError(seq uint64, tag string) error {
	return fmt.Errorf("remote: item %d moved to tag %q, past the %d tags a stage keeps", seq, tag, MaxLines)
}

// Format writes path as its steps, each its tag and worker, in order.
func Format(path []Step) string {
	var b strings.Builder
	for i, s := range path {
		if i > 0 {
			b.WriteString(" → ")
		}
		fmt.Fprintf(&b, "%q on %s", s.Tag, s.Worker)
	}
	return b.String()
}
