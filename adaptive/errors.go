package adaptive

import (
	"errors"

	"github.com/evolvekit/evolve/internal/errs"
)

// ErrConfig is reported by the errors [New], [Stage], [NewState] and
// [SetLimit] return for a setting that is out of range or missing, the
// controller's own settings included: errors.Is(err, ErrConfig) is true,
// and the message names the setting and the value it got, as in
// "adaptive: max must be at least min (4), got 2".
var ErrConfig = errors.New("adaptive: invalid setting")

// invalid returns an [ErrConfig] with the message "adaptive: " + format.
func invalid(format string, args ...any) error {
	return errs.Invalid(ErrConfig, "adaptive", format, args...)
}

// controllerError is what a controller's Validate reported: its message
// prefixed with "adaptive: ", and both it and [ErrConfig] for errors.Is.
type controllerError struct{ err error }

// Error returns the controller's message, prefixed with "adaptive: ".
func (e controllerError) Error() string { return "adaptive: " + e.err.Error() }

// Unwrap returns ErrConfig and the controller's error.
func (e controllerError) Unwrap() []error { return []error{ErrConfig, e.err} }

// badController returns err, the error a controller's Validate returned,
// as an [ErrConfig]; nil stays nil, and an ErrConfig is returned as it is.
func badController(err error) error {
	if err == nil || errors.Is(err, ErrConfig) {
		return err
	}
	return controllerError{err: err}
}
