package agent

import (
	"errors"
	"fmt"
)

// ErrClosed is returned by [Handle.Post] and [Handle.TryPost] after
// [Handle.Close] or [Handle.Stop], by [Handle.Status] for an agent that
// ended without a final status (one whose evolve panicked), and by the
// constructors of every agent package once the runtime has shut down.
var ErrClosed = errors.New("agent: closed")

// ErrFull is returned by [Handle.TryPost] when the input queue is at its
// bound.
var ErrFull = errors.New("agent: input queue full")

// ErrStopped is returned by [Handle.Wait] when the agent was stopped by
// [Handle.Stop] or [Runtime.Shutdown] before it finished.
var ErrStopped = errors.New("agent: stopped before finishing")

// ErrUnavailable is what the error of an item that failed for want of
// anything to work on it matches with errors.Is: a remote stage with no
// worker that may take it (remote's ErrNoWorker), say, not anything the
// item is or did. A durable queue hands such an item back, to be tried
// again later, rather than burying it in its dead letters, and spends none
// of its attempts on it.
var ErrUnavailable = errors.New("agent: nothing available to work on the item")

// PanicError is the error a panic becomes: in user work, in a sink, or in an
// evolve function. It keeps the panic value and the stack of the goroutine
// that panicked.
type PanicError struct {
	Value any
	Stack []byte
}

// Error reports the panic value; the stack is in the Stack field.
func (e *PanicError) Error() string {
	return fmt.Sprintf("panic: %v", e.Value)
}

// Unwrap returns the panic value if it was an error, so errors.Is and
// errors.As see through the panic.
func (e *PanicError) Unwrap() error {
	err, _ := e.Value.(error)
	return err
}
