// Package moves reads the moves that work asks for: an error that asks
// for its item to go on, on a worker holding a tag, with the state the
// work reached as its input (what remote.Move returns), for a stage that
// runs the work, remote or in one process.
package moves

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
)

// Mover is the error of work that asks its item to go on where tag is
// held, with next as its input.
type Mover interface {
	error
	MoveTo() (tag string, next any)
}

// Of returns the move err asks for, wrapped or not, if it is one.
func Of(err error) (Mover, bool) {
	var m Mover
	if err == nil || !errors.As(err, &m) {
		return nil, false
	}
	return m, true
}

// Path names the tags of path in order, quoted, joined by arrows: the last
// few of a long one, after "...".
func Path(path []string) string {
	const most = 8
	quoted := make([]string, 0, min(len(path), most)+1)
	if len(path) > most {
		path = path[len(path)-most:]
		quoted = append(quoted, "...")
	}
	for _, t := range path {
		quoted = append(quoted, fmt.Sprintf("%q", t))
	}
	return strings.Join(quoted, " → ")
}

// TypeName names v's type, or says nil.
func TypeName(v any) string {
	if v == nil {
		return "nil"
	}
	return reflect.TypeOf(v).String()
}
