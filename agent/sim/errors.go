package sim

import (
	"errors"
	"fmt"
)

// ErrConfig is reported by [Run] for a setting that is out of range or
// missing: errors.Is(err, ErrConfig) is true, and the message names the
// setting and the value it got, as in "sim: knee must be at least 1, got 0".
var ErrConfig = errors.New("sim: invalid setting")

// ErrBroken is reported by [Run] when the agent under simulation breaks a
// promise of the agent contract: it emits more values than the demand it
// was granted, gives back more input slots than it was handed items, or
// starts two pieces of work under one ID. errors.Is(err, ErrBroken) is true
// and the message says what happened and when.
var ErrBroken = errors.New("sim: the agent broke its contract")

// invalidError is a setting out of range, described by msg.
type invalidError struct {
	msg string
}

// Error returns the message naming the setting.
func (e *invalidError) Error() string { return e.msg }

// Is makes errors.Is(err, ErrConfig) true.
func (e *invalidError) Is(target error) bool { return target == ErrConfig }

// invalid builds an invalidError whose message starts with "sim: ".
func invalid(format string, args ...any) error {
	return &invalidError{msg: "sim: " + fmt.Sprintf(format, args...)}
}

// broken builds an error wrapping ErrBroken.
func broken(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrBroken, fmt.Sprintf(format, args...))
}
