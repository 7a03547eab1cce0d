package moved

import "github.com/evolvekit/evolve/internal/moves"

// Lift returns err, the error of work on values of type T, with the move
// it asks for, if any, carried by the item it works on: its next input,
// made into the item by wrap with the tag it moves to. An error that asks
// for no move, or for one with a next of another type, is returned as it
// is, for the stage to report.
func Lift[T any](err error, wrap func(next T, tag string) any) error {
	m, ok := moves.Of(err)
	if !ok {
		return err
	}
	tag, next := m.MoveTo()
	v, ok := next.(T)
	if !ok {
		return err
	}
	return &lifted{err: err, tag: tag, next: wrap(v, tag)}
}

// lifted is a move whose next input is an item: what its Error says is
// the move's.
type lifted struct {
	err  error
	tag  string
	next any
}

func (l *lifted) Error() string                  { return l.err.Error() }
func (l *lifted) MoveTo() (tag string, next any) { return l.tag, l.next }
