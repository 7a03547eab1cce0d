package book

import (
	"errors"

	"github.com/evolvekit/evolve/agent"
)

// The errors an item fails with for good; package remote exports them, and
// its doc says when each comes.
var (
	ErrWorkerLost         = errors.New("remote: the worker was lost")
	ErrLeaseExpired       = errors.New("remote: the lease expired")
	ErrNoWorker     error = noWorkerError{}
)

// noWorkerError is ErrNoWorker: an item no worker could take is not the
// item's fault, so it matches agent.ErrUnavailable too.
type noWorkerError struct{}

func (noWorkerError) Error() string { return "remote: no worker to take the item" }

// Is reports whether target is agent.ErrUnavailable.
func (noWorkerError) Is(target error) bool { return target == agent.ErrUnavailable }
