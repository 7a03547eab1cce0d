package node

import (
	"errors"

	"github.com/evolvekit/evolve/internal/errs"
)

// ErrConfig is package remote's ErrConfig: a setting out of range or
// missing, here an address or a TLS configuration.
var ErrConfig = errors.New("remote: invalid setting")

// Invalid returns an [ErrConfig] with the message "remote: " + format.
func Invalid(format string, args ...any) error {
	return errs.Invalid(ErrConfig, "remote", format, args...)
}
