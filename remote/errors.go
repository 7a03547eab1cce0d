package remote

import (
	"github.com/evolvekit/evolve/remote/internal/book"
	"github.com/evolvekit/evolve/remote/internal/node"
	"github.com/evolvekit/evolve/remote/internal/wire"
	"github.com/evolvekit/evolve/remote/internal/worker"
)

// ErrConfig is reported for a setting that is out of range or missing:
// errors.Is(err, ErrConfig) is true, and the message names the setting and
// the value it got, as in "remote: slots must be at least 1, got 0".
var ErrConfig = node.ErrConfig

// ErrWorkerLost is the error of an attempt whose worker died (its process
// ended, or its connection broke) before it sent the item's result.
var ErrWorkerLost = book.ErrWorkerLost

// ErrLeaseExpired is the error of an attempt whose worker held the item for
// longer than Config.Lease without sending its result: the worker hung, was
// stopped, or the message was lost.
var ErrLeaseExpired = book.ErrLeaseExpired

// ErrNoWorker is the error of an item that no registered worker could
// take (none has its tag, none is registered at all, or every one that may
// take it has all its slots hung) after it waited Config.TagWait for one,
// or that came after such items while that lasted. It matches
// agent.ErrUnavailable too: no worker is not the item's fault, and a
// durable queue hands such an item back rather than burying it.
var ErrNoWorker = book.ErrNoWorker

// ErrTooLarge is the error, wrapped, of an item whose encoding is larger
// than one message to its worker may carry (see the package doc, under
// Large items).
var ErrTooLarge = wire.ErrTooLarge

// ErrMasterGone is what [Work] returns when the master it worked for went
// away without saying the stage was finished, and did not come back within
// WorkerConfig.Rejoin.
var ErrMasterGone = worker.ErrMasterGone

// ErrUnreachable is what [Work] returns when it cannot reach the master at
// its address, the TLS handshake with it fails, or the master does not
// answer the registration.
var ErrUnreachable = worker.ErrUnreachable

// ErrAbandoned is what [Work] returns, wrapped, when work calls went on
// for WorkerConfig.Grace after their context ended: Work returned without
// them, and they run on in their goroutines until they return, their
// results dropped. The error names their items.
var ErrAbandoned = worker.ErrAbandoned

// ErrWedged is what [Work] returns, wrapped, when WorkerConfig.EndWhenWedged
// is set and every slot of the worker has run one task for longer than the
// master's Config.Lease: the error names the items.
var ErrWedged = worker.ErrWedged

// invalid returns an [ErrConfig] with the message "remote: " + format.
func invalid(format string, args ...any) error { return node.Invalid(format, args...) }

// WorkError is the error of an attempt whose work failed on a worker: the
// text of the error the work returned there, and the worker's address.
type WorkError struct {
	Worker string
	Text   string
}

// Error returns the text of the worker's error.
func (e *WorkError) Error() string { return e.Text }
