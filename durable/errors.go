package durable

import "errors"

// The errors of package durable. Each is wrapped with what went wrong.
var (
	// ErrConfig is a setting out of range, of a Config, a Store or an
	// option; a missing Store, chain or key; or a credentials file that
	// cannot be used.
	ErrConfig = errors.New("durable: invalid setting")
	// ErrStore is an Embedded store's directory that cannot be used: it
	// cannot be written, or what it holds is not a queue's store.
	ErrStore = errors.New("durable: the store cannot be used")
	// ErrUnreachable is a Server's NATS servers that did not answer, or
	// refused the credentials.
	ErrUnreachable = errors.New("durable: the NATS server cannot be reached")
	// ErrCodec is an item the codec cannot encode, or bytes it cannot
	// decode.
	ErrCodec = errors.New("durable: codec")
	// ErrDamaged is an Embedded store that lost items since it was last
	// closed, found as Open opens it: the error names how many, and at
	// which sequences (see What the disk keeps in the package doc).
	ErrDamaged = errors.New("durable: the store is damaged")
	// ErrClosed is a queue used after Close.
	ErrClosed = errors.New("durable: queue closed")
)
