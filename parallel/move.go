package parallel

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"time"
)

// ErrMoves is the error, wrapped with the item's path, of an item whose
// work asked it to move on more than Config.MaxMoves times.
var ErrMoves = errors.New("parallel: the item moved too many times")

// mover is the error of work that asks its item to go on, on a worker
// that holds tag, with next as its input: what remote.Move returns. A
// parallel stage runs in one process, which holds whatever it holds, so
// the item goes on here, at once.
type mover interface {
	error
	MoveTo() (tag string, next any)
}

// moveOf returns the move err asks for, if it is one.
func moveOf(err error) (mover, bool) {
	var m mover
	if err == nil || !errors.As(err, &m) {
		return nil, false
	}
	return m, true
}

// moveOn takes out of rs, the results of the batch f that stand after
// retryFailed, those whose work asked for a move, and queues their items
// to go on at once, ahead of new items as retries do, with the inputs
// their work gave, spending no attempt. An item that asked for more than
// MaxMoves moves, or gave an input of another type than the stage's,
// fails for good. It returns the results that stand.
func (s *State[In, Out]) moveOn(rs []Result[Out], f flight[In], at time.Time) []Result[Out] {
	var kept []Result[Out]
	for i, r := range rs {
		m, ok := moveOf(r.Err)
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
				r.Seq, tag, typeName(v), reflect.TypeFor[In]())
		case len(path) > s.maxMoves:
			r.Err = fmt.Errorf("parallel: item %d moved more than %d times, to %s: %w", r.Seq, s.maxMoves, pathString(path), ErrMoves)
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

// pathString names the tags of path, in order, the last few of a long
// one.
func pathString(path []string) string {
	const most = 8
	quoted := make([]string, 0, min(len(path), most))
	if len(path) > most {
		path = path[len(path)-most:]
		quoted = append(quoted, "...")
	}
	for _, t := range path {
		quoted = append(quoted, fmt.Sprintf("%q", t))
	}
	return strings.Join(quoted, " → ")
}

// typeName names v's type, or nil.
func typeName(v any) string {
	if v == nil {
		return "nil"
	}
	return reflect.TypeOf(v).String()
}
