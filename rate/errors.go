package rate

import (
	"errors"

	"github.com/evolvekit/evolve/internal/errs"
)

// ErrConfig is returned by [NewState], [New], [Stage] and [SetLimit] when a
// setting is out of range or missing. The error's message names the setting
// and the value it got, as in "rate: burst must be at least 1, got 0"; test
// for it with errors.Is.
var ErrConfig = errors.New("rate: invalid setting")

// ErrCost is returned by a rate agent's Post and TryPost when
// [Config.Cost] gives an item a cost the bucket can never pay: negative,
// NaN, or above the burst, as in "rate: cost 5 exceeds burst 3". The item
// is not posted.
var ErrCost = errors.New("rate: invalid cost")

// configError returns an [ErrConfig] with the message "rate: " + format.
func configError(format string, args ...any) error {
	return errs.Invalid(ErrConfig, "rate", format, args...)
}

// costError returns an [ErrCost] with the message "rate: " + format.
func costError(format string, args ...any) error {
	return errs.Invalid(ErrCost, "rate", format, args...)
}
