package node

import "github.com/evolvekit/evolve/remote/internal/wire"

// Bound returns the bound of messages a setting of n bytes makes:
// wire.DefaultMaxMessage for 0, or n, or an ErrConfig for less than
// wire.MinMessage.
func Bound(n int) (int, error) {
	switch {
	case n == 0:
		return wire.DefaultMaxMessage, nil
	case n < wire.MinMessage:
		return 0, Invalid("max message must be 0 for the default or at least %d bytes, got %d", wire.MinMessage, n)
	}
	return n, nil
}
