// Package intake paces how a durable queue's Consume takes items: it
// asks for what is ready, and while nothing is, waits for the next item
// longer each time ([Waits]); it rides out the errors of the queue's
// servers ([Run], [Unavailable]); it tells when the queue holds nothing
// but what the process holds ([Drained]); and it renews the lease of
// every item the process holds while it runs ([Renew]).
package intake

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// IdleWait is the longest one fetch waits for items when the queue has
// none ready, and how long Run waits after an error of the servers.
// FirstWait is the first wait after items came (see Waits).
const (
	IdleWait  = 250 * time.Millisecond
	FirstWait = 5 * time.Millisecond
)

// Outage is how long Run rides out errors of the queue's servers before
// it gives up: longer than a cluster takes to elect a new leader.
const Outage = 30 * time.Second

// Unavailable is an error of the queue's servers, which may pass.
type Unavailable struct{ Err error }

// Error returns the error of the servers' text.
func (u Unavailable) Error() string { return u.Err.Error() }

// Unwrap returns the error of the servers.
func (u Unavailable) Unwrap() error { return u.Err }

// Run calls step until ctx ends, step reports the run over, or it fails
// with an error that is not Unavailable; it returns that error, ctx's, or
// nil once the run is over.
//
// An Unavailable error does not end it at once: a cluster that lost the
// server leading the queue answers with errors, or not at all, until it
// has elected another, and a connection to a server that went away moves
// to another meanwhile. Run calls step again every IdleWait, and gives up
// only once the errors have lasted longer than Outage.
func Run(ctx context.Context, step func(context.Context) (bool, error)) error {
	var failing time.Time // when the errors began; zero while the queue answers
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		over, err := step(ctx)
		var u Unavailable
		switch {
		case over:
			return nil
		case err == nil:
			failing = time.Time{}
			continue
		case ctx.Err() != nil:
			return ctx.Err()
		case !errors.As(err, &u):
			return err
		case failing.IsZero():
			failing = time.Now()
		case time.Since(failing) > Outage:
			return fmt.Errorf("%w (for more than %v)", err, Outage)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(IdleWait):
		}
	}
}

// Waits is how long the next fetch waits for items when the queue has
// none ready: FirstWait after items came, and each time after it twice as
// long, up to IdleWait. At the end of a run, what keeps the queue from
// looking empty is often acknowledgements on their way, which the server
// takes within a few milliseconds. The zero Waits is as after items came.
type Waits struct{ last time.Duration }

// Next returns the wait of the next fetch that finds nothing ready.
func (w *Waits) Next() time.Duration {
	w.last = min(max(2*w.last, FirstWait), IdleWait)
	return w.last
}

// Came notes that items came: the next wait is FirstWait again.
func (w *Waits) Came() { w.last = 0 }
