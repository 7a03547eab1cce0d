package parallel

import (
	"errors"

	"github.com/evolvekit/evolve/internal/errs"
)

// ErrConfig is reported by the errors [New], [Stage], [NewState] and
// [SetLimit] return for a setting that is out of range or missing:
// errors.Is(err, ErrConfig) is true, and the message names the setting and
// the value it got, as in "parallel: limit must be at least 1, got 0".
var ErrConfig = errors.New("parallel: invalid setting")

// invalid returns an [ErrConfig] with the message "parallel: " + format.
func invalid(format string, args ...any) error {
	return errs.Invalid(ErrConfig, "parallel", format, args...)
}
