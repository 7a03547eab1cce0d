package rate

import (
	"errors"
	"fmt"
)

// ErrConfig is returned by [NewState], [New] and [Agent.SetLimit] when a
// setting is out of range. The error's message names the setting and the
// value it got, as in "rate: burst must be at least 1, got 0"; test for it
// with errors.Is.
var ErrConfig = errors.New("rate: invalid setting")

// ErrCost is returned by [Agent.Post] and [Agent.TryPost] when [Config.Cost]
// gives an item a cost the bucket can never pay: negative, NaN, or above the
// burst, as in "rate: cost 5 exceeds burst 3". The item is not posted.
var ErrCost = errors.New("rate: invalid cost")

// invalid is an error whose message says exactly what was wrong and which
// unwraps to one of the sentinels above.
type invalid struct {
	kind error
	text string
}

// Error returns the message naming what was wrong.
func (e *invalid) Error() string { return e.text }

// Unwrap returns the sentinel, for errors.Is.
func (e *invalid) Unwrap() error { return e.kind }

// configError returns an [ErrConfig] with the message "rate: " + format.
func configError(format string, args ...any) error {
	return &invalid{kind: ErrConfig, text: "rate: " + fmt.Sprintf(format, args...)}
}

// costError returns an [ErrCost] with the message "rate: " + format.
func costError(format string, args ...any) error {
	return &invalid{kind: ErrCost, text: "rate: " + fmt.Sprintf(format, args...)}
}
