// Package errs builds the errors every package of this module returns for a
// setting that is out of range or missing: a message naming the setting and
// the value it got, and a sentinel that errors.Is finds.
package errs

import "fmt"

// invalid is a setting out of range: its message says which, and it wraps
// the package's sentinel.
type invalid struct {
	kind error
	text string
}

// Error returns the message naming the setting.
func (e *invalid) Error() string { return e.text }

// Unwrap returns the sentinel, for errors.Is.
func (e *invalid) Unwrap() error { return e.kind }

// Invalid returns an error whose message is pkg, a colon and the formatted
// text, as in "parallel: limit must be at least 1, got 0", and for which
// errors.Is(err, kind) is true.
func Invalid(kind error, pkg, format string, args ...any) error {
	return &invalid{kind: kind, text: pkg + ": " + fmt.Sprintf(format, args...)}
}
