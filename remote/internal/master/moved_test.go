package master

import (
	"errors"
	"testing"

	"github.com/evolvekit/evolve/remote/internal/book"
	"github.com/rs/zerolog"
	"github.com/stretchr/testify/assert"
)

// told is one call of Config.OnMove.
type told struct {
	next int
	tag  string
	hops int
}

// TestMovedTellsOnMoveOnlyOfMovesWithAState: the book logs a worker's own
// moves (Local, no next input) beside those the master took; only the
// latter, with their next input, reach Config.OnMove, with the tag and
// hops the book counted, and an error OnMove returns stops nothing.
func TestMovedTellsOnMoveOnlyOfMovesWithAState(t *testing.T) {
	var got []told
	fail := false
	onMove := func(next int, tag string, hops int) error {
		got = append(got, told{next, tag, hops})
		if fail {
			return errors.New("the queue is away")
		}
		return nil
	}
	l := &link[int, int]{cfg: Config{Name: "s", OnMove: onMove}, log: zerolog.Nop()}
	l.moved(book.Hop{Item: 3, From: "w1", Tag: "a", Hops: 1, Local: true})
	l.moved(book.Hop{Item: 3, From: "w1", Tag: "b", Hops: 2, Next: 30})
	l.moved(book.Hop{Item: 4, From: "w2", Tag: "c", Hops: 1, Next: "not an int"})
	fail = true
	l.moved(book.Hop{Item: 5, From: "w2", Tag: "d", Hops: 3, Next: 50})
	assert.Equal(t, []told{{30, "b", 2}, {50, "d", 3}}, got,
		"a local move, and a next input of another type, are not recorded; the others are, with the book's hops")

	l = &link[int, int]{cfg: Config{Name: "s"}, log: zerolog.Nop()}
	l.moved(book.Hop{Item: 3, Tag: "b", Hops: 1, Next: 30}) // no OnMove: nothing to tell, and no panic
}
