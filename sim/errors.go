package sim

import (
	"errors"
	"fmt"

	"github.com/evolvekit/evolve/internal/errs"
)

// ErrConfig is reported by [Run] for a setting that is out
// of range or missing: errors.Is(err, ErrConfig) is true, and the message
// names the setting and the value it got, as in "sim: knee must be at least
// 1, got 0".
var ErrConfig = errors.New("sim: invalid setting")

// ErrBroken is reported by [Run] when an agent under
// simulation breaks a promise of the agent contract: it emits more values than the demand it
// was granted, gives back more input slots than it was handed items, starts
// two pieces of work under one ID, asks for an effect of a type it cannot
// ask for, or does not handle a message the simulator sends it (it returns
// [agent.Unhandled]). errors.Is(err, ErrBroken) is true and the message
// says what happened and when, as in "did not handle agent.Done[int]".
var ErrBroken = errors.New("sim: the agent broke its contract")

// invalid returns an [ErrConfig] with the message "sim: " + format.
func invalid(format string, args ...any) error {
	return errs.Invalid(ErrConfig, "sim", format, args...)
}

// broken builds an error wrapping ErrBroken.
func broken(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrBroken, fmt.Sprintf(format, args...))
}
