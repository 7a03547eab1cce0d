package intake

import (
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// Due returns the messages a holder holds whose lease was renewed before
// at - every, and notes them renewed at at (a ledger's Due, a Leases').
type Due func(at time.Time, every time.Duration) []jetstream.Msg

// Renew renews, until stop closes, the lease of every message the
// holders hold, a third of lease after it was last renewed. It asks them
// in order: a message the first renewed through a holder that tells the
// next (as a fair fetch's held messages do) is not due with the next.
func Renew(stop <-chan struct{}, lease time.Duration, holders ...Due) {
	every := lease / 3
	tick := time.NewTicker(every / 2)
	defer tick.Stop()
	for {
		select {
		case <-stop:
			return
		case now := <-tick.C:
			for _, due := range holders {
				for _, m := range due(now, every) {
					_ = m.InProgress()
				}
			}
		}
	}
}
