package adaptive

import (
	"errors"
	"fmt"
)

// ErrConfig is reported by the errors [New], [NewState], [Stage] and
// [Agent.SetLimit] return for a setting that is out of range or missing:
// errors.Is(err, ErrConfig) is true, and the message names the setting and
// the value it got, as in "adaptive: max must be at least min (4), got 2".
var ErrConfig = errors.New("adaptive: invalid setting")

// invalidError is a setting out of range, described by msg.
type invalidError struct {
	msg string
}

// Error returns the message naming the setting.
func (e *invalidError) Error() string { return e.msg }

// Is makes errors.Is(err, ErrConfig) true.
func (e *invalidError) Is(target error) bool { return target == ErrConfig }

// invalid builds an invalidError whose message starts with "adaptive: ".
func invalid(format string, args ...any) error {
	return &invalidError{msg: "adaptive: " + fmt.Sprintf(format, args...)}
}
