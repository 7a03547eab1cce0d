package record

import (
	"context"
	"slices"

	"github.com/evolvekit/evolve/agent"
)

// sentinels are the errors a recording notes that an error matches with
// errors.Is, by name: those evolve functions and the runtime look for.
var sentinels = []struct {
	name string
	err  error
}{
	{"context.Canceled", context.Canceled},
	{"context.DeadlineExceeded", context.DeadlineExceeded},
	{"agent.ErrClosed", agent.ErrClosed},
	{"agent.ErrFull", agent.ErrFull},
	{"agent.ErrStopped", agent.ErrStopped},
}

// recordedError is an error read back from a recording. It has the
// recorded text, errors.Is finds in it the sentinels the recorded error
// matched, and errors.As the *agent.RetryAfterError and *agent.PanicError
// it held (themselves read back), so an evolve function takes the same
// decisions on it. It matches no other error or type: a Retry.If that
// looks for an error of its own sees only the text.
type recordedError struct {
	text  string
	is    []error
	after *agent.RetryAfterError
	panic *agent.PanicError
}

func (e *recordedError) Error() string { return e.text }

// Is reports whether the recorded error matched target, a sentinel.
func (e *recordedError) Is(target error) bool { return slices.Contains(e.is, target) }

// As finds the recorded *agent.RetryAfterError or *agent.PanicError.
func (e *recordedError) As(target any) bool {
	switch t := target.(type) {
	case **agent.RetryAfterError:
		if e.after != nil {
			*t = e.after
			return true
		}
	case **agent.PanicError:
		if e.panic != nil {
			*t = e.panic
			return true
		}
	}
	return false
}

// opaque is a value in an interface whose type a replay cannot name: it
// keeps the value's recorded encoding, and encodes to it again.
type opaque struct {
	raw []byte
}
