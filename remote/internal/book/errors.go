package book

import "errors"

// The errors an item fails with for good; package remote exports them, and
// its doc says when each comes.
var (
	ErrWorkerLost   = errors.New("remote: the worker was lost")
	ErrLeaseExpired = errors.New("remote: the lease expired")
	ErrNoWorker     = errors.New("remote: no worker to take the item")
)
