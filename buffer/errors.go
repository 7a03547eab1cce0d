package buffer

import (
	"errors"
	"fmt"
)

// ErrConfig is returned by [NewState] and [New] when a setting of [Config] is
// out of range, and by New when the flush function is missing. The error's
// message names the setting and the value it got, as in "buffer: size must
// be at least 1, got 0"; test for it with errors.Is.
var ErrConfig = errors.New("buffer: invalid setting")

// configError is an [ErrConfig] whose message says exactly what was wrong.
type configError struct {
	text string
}

// Error returns the message naming the setting.
func (e *configError) Error() string { return e.text }

// Unwrap returns ErrConfig, for errors.Is.
func (e *configError) Unwrap() error { return ErrConfig }

// invalid returns an [ErrConfig] with the message "buffer: " + format.
func invalid(format string, args ...any) error {
	return &configError{text: "buffer: " + fmt.Sprintf(format, args...)}
}
