package parallel

import (
	"errors"
	"fmt"
	"reflect"
	"time"

	"github.com/evolvekit/evolve/internal/moves"
)

// ErrMoves is the error, wrapped with the item's path, of an item whose
// work asked it to move on more than Config.MaxMoves times.
var ErrMoves = errors.New("parallel: the item moved too many times")

// moveOn takes out of rs, the results of the batch f that stand after
// retryFailed, those whose work asked for a move, and queues their items
// to go on at once, ahead of new items as retries do, with the inputs
// their work gave, spending no attempt. An item that asked for more than
// MaxMoves moves, or gave an input of another type than the stage's,
// fails for good. It returns the results that stand.
func (s *State[In, Out]) moveOn(rs []Result[Out], f flight[In], at time.Time) []Result[Out] {
	var kept []Result[Out]
	for i, r := range rs {
		m, ok := moves.Of(r.Err)
		if !ok {
			if kept != nil {
				kept = append(kept, r)
			}
			continue
		}
		if kept == nil {
			kept = append(make([]Result[Out], 0, len(rs)), rs[:i]...)
		}
		tag, v := m.MoveTo()
		path := append(f.path[:len(f.path):len(f.path)], tag)
		next, ok := v.(In)
		switch {
		case !ok:
			r.Err = fmt.Errorf("parallel: item %d moves to tag %q with a next input of type %s, but the stage's items are of type %s",
				r.Seq, tag, moves.TypeName(v), reflect.TypeFor[In]())
		case len(path) > s.maxMoves:
			r.Err = fmt.Errorf("parallel: item %d moved more than %d times, to %s: %w", r.Seq, s.maxMoves, moves.Path(path), ErrMoves)
		default:
			s.queueRetry(retrial[In]{seq: r.Seq, item: next, attempt: f.attempt, due: at, path: path})
			s.moved++
			continue
		}
		kept = append(kept, r)
	}
	if kept == nil {
		return rs
	}
	return kept
}
