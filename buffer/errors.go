package buffer

import (
	"errors"

	"github.com/evolvekit/evolve/internal/errs"
)

// ErrConfig is returned by [NewState], [New] and [Stage] when a setting of
// [Config] is out of range, and by New and Stage when the flush function or
// the runtime is missing. The error's message names the setting and the
// value it got, as in "buffer: size must be at least 1, got 0"; test for it
// with errors.Is.
var ErrConfig = errors.New("buffer: invalid setting")

// ErrWeight is returned by a buffer agent's Post and TryPost when
// [Config.Weight] gives an item a negative weight, as in "buffer: weight
// must not be negative, got -3". The item is not posted.
var ErrWeight = errors.New("buffer: invalid weight")

// invalid returns an [ErrConfig] with the message "buffer: " + format.
func invalid(format string, args ...any) error {
	return errs.Invalid(ErrConfig, "buffer", format, args...)
}

// errsWeight returns an [ErrWeight] for the weight w.
func errsWeight(w int) error {
	return errs.Invalid(ErrWeight, "buffer", "weight must not be negative, got %d", w)
}
