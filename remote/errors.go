package remote

import (
	"errors"

	"github.com/evolvekit/evolve/internal/errs"
)

// ErrConfig is reported for a setting that is out of range or missing:
// errors.Is(err, ErrConfig) is true, and the message names the setting and
// the value it got, as in "remote: slots must be at least 1, got 0".
var ErrConfig = errors.New("remote: invalid setting")

// ErrWorkerLost is the error of an attempt whose worker died (its process
// ended, or its connection broke) before it sent the item's result.
var ErrWorkerLost = errors.New("remote: the worker was lost")

// ErrLeaseExpired is the error of an attempt whose worker held the item for
// longer than Config.Lease without sending its result: the worker hung, was
// stopped, or the message was lost.
var ErrLeaseExpired = errors.New("remote: the lease expired")

// ErrNoWorker is the error of an item that no registered worker could
// take (none has its tag, or none is registered at all) after it waited
// Config.TagWait for one.
var ErrNoWorker = errors.New("remote: no worker to take the item")

// ErrMasterGone is what [Work] returns when the master it worked for went
// away without saying the stage was finished.
var ErrMasterGone = errors.New("remote: the master is gone")

// ErrUnreachable is what [Work] returns when it cannot reach the master at
// its address, the TLS handshake with it fails, or the master does not
// answer the registration.
var ErrUnreachable = errors.New("remote: the master cannot be reached")

// ErrAbandoned is what [Work] returns, wrapped, when work calls went on
// for WorkerConfig.Grace after their context ended: Work returned without
// them, and they run on in their goroutines until they return, their
// results dropped. The error names their items.
var ErrAbandoned = errors.New("remote: work calls ignored the end of their context and were abandoned")

// invalid returns an [ErrConfig] with the message "remote: " + format.
func invalid(format string, args ...any) error {
	return errs.Invalid(ErrConfig, "remote", format, args...)
}
