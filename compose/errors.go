package compose

import (
	"errors"

	"github.com/evolvekit/evolve/internal/errs"
)

// ErrConfig is reported by the error [Start] returns for a nil runtime, the
// zero Stage or an option out of range: the message names which, as in
// "compose: runtime must not be nil".
var ErrConfig = errors.New("compose: invalid setting")

// invalid returns an [ErrConfig] with the message "compose: " + format.
func invalid(format string, args ...any) error {
	return errs.Invalid(ErrConfig, "compose", format, args...)
}
