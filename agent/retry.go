package agent

import (
	"fmt"
	"time"
)

// RetryAfterError is an error that says when the work may be tried again:
// a server's "retry after", say. An agent that retries failed work waits at
// least After before it tries again.
type RetryAfterError struct {
	Err   error
	After time.Duration
}

// RetryAfter returns err wrapped in a *RetryAfterError asking for a wait of
// at least d before the next attempt.
func RetryAfter(err error, d time.Duration) error {
	return &RetryAfterError{Err: err, After: d}
}

// Error returns the wrapped error's text and the wait asked for.
func (e *RetryAfterError) Error() string {
	return fmt.Sprintf("%v (retry after %v)", e.Err, e.After)
}

// Unwrap returns the wrapped error.
func (e *RetryAfterError) Unwrap() error { return e.Err }
