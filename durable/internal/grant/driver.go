package grant

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// Driver performs the actions of one process's Keeper against the key of
// a key-value bucket, on a goroutine of its own, until Stop: it reads and
// writes the table, hands the leases to apply, and renews them on time.
// Use and Stop may be called from any goroutine.
type Driver struct {
	k       *Keeper
	kv      jetstream.KeyValue
	key     string
	timeout time.Duration    // of each request
	apply   func(Limit) bool // false once the bucket's agent has ended
	events  chan Event       // from Use and Stop
	stopped chan struct{}    // closed by Stop: let the share go
	quit    chan struct{}    // closed by Stop once it has waited: return
	done    chan struct{}    // closed as the goroutine returns
	once    sync.Once
	rate    float64       // the limit's
	period  time.Duration // of a lease

	mu         sync.Mutex
	lastPassed int       // the bucket's count at lastAt
	lastAt     time.Time // when the rate was last measured
	measured   float64   // the rate measured then, items a second
}

// Start starts the Driver of a process whose Keeper has cfg, on the key
// of kv, and returns it: it asks for a share at once.
func Start(kv jetstream.KeyValue, key string, cfg Config, apply func(Limit) bool) *Driver {
	d := &Driver{k: NewKeeper(cfg), kv: kv, key: key, timeout: max(cfg.Period/4, 10*time.Millisecond), apply: apply,
		events: make(chan Event, 16), stopped: make(chan struct{}), quit: make(chan struct{}), done: make(chan struct{}), rate: cfg.Rate, period: cfg.Period}
	go d.run()
	d.send(Renew{})
	return d
}

// Use tells the Driver what its process's bucket reports: how many items
// wait for tokens, and how many it let through in all. The process's
// demand is the rate it let items through at, measured over half a period
// at least, with a quarter more for room; or, while items wait for tokens,
// the whole limit: a process held back by its share asks for all it can
// get, and gets an equal part of what those that ask for less leave
// (max-min fairness), at once rather than a step at a time. (A renewal
// that shrinks a share applies two limits a moment apart, and the bucket
// reports after each: a rate measured between the two would be nothing.)
func (d *Driver) Use(waiting, passed int) {
	now := time.Now()
	d.mu.Lock()
	switch elapsed := now.Sub(d.lastAt); {
	case d.lastAt.IsZero():
		d.lastPassed, d.lastAt = passed, now
	case elapsed >= d.period/2:
		d.measured = float64(passed-d.lastPassed) / elapsed.Seconds()
		d.lastPassed, d.lastAt = passed, now
	}
	rate := d.measured
	d.mu.Unlock()
	demand := 1.25 * rate
	if waiting > 0 {
		demand = d.rate
	}
	d.send(Use{Demand: demand})
}

// send hands e to the goroutine, unless it is stopping or its queue is
// full: a report lost then is followed by the next.
func (d *Driver) send(e Event) {
	select {
	case d.events <- e:
	default:
	}
}

// Stop lets the process's share go, within wait, and waits for the
// Driver's goroutine. A share it could not let go of is freed by the
// others once they see it unchanged for a period.
func (d *Driver) Stop(wait time.Duration) {
	d.once.Do(func() {
		close(d.stopped)
		t := time.NewTimer(wait)
		defer t.Stop()
		select {
		case <-d.done:
		case <-t.C:
			close(d.quit) // the goroutine returns after the request in hand
		}
	})
	<-d.done
}

// run steps the Keeper with what comes, and performs its actions.
func (d *Driver) run() {
	defer close(d.done)
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()
	stopping := d.stopped
	for {
		var e Event
		select {
		case e = <-d.events:
		case <-timer.C:
			e = Renew{}
		case <-stopping:
			stopping = nil // stepped once
			e = Leave{}
		case <-d.quit:
			return
		}
		for e != nil {
			select {
			case <-d.quit:
				return
			default:
			}
			var next Event
			for _, a := range d.k.Step(time.Now(), e) {
				switch a := a.(type) {
				case Get:
					next = d.get()
				case Put:
					next = d.put(a)
				case Apply:
					d.apply(a.Limit)
				case Arm:
					timer.Reset(a.Delay)
				case Left:
					return
				}
			}
			e = next
		}
	}
}

// get reads the table.
func (d *Driver) get() Event {
	ctx, cancel := context.WithTimeout(context.Background(), d.timeout)
	defer cancel()
	entry, err := d.kv.Get(ctx, d.key)
	switch {
	case errors.Is(err, jetstream.ErrKeyNotFound):
		return Read{}
	case err != nil:
		return Read{Err: err}
	}
	t, err := Decode(entry.Value())
	if err != nil {
		return Read{Err: err}
	}
	return Read{Table: t, Rev: entry.Revision(), Found: true}
}

// put writes the table by compare-and-set.
func (d *Driver) put(p Put) Event {
	ctx, cancel := context.WithTimeout(context.Background(), d.timeout)
	defer cancel()
	var err error
	if p.Create {
		_, err = d.kv.Create(ctx, d.key, p.Table.Encode())
	} else {
		_, err = d.kv.Update(ctx, d.key, p.Table.Encode(), p.Rev)
	}
	switch {
	case err == nil:
		return Wrote{}
	case conflict(err):
		return Wrote{Conflict: true}
	}
	return Wrote{Err: err}
}

// conflict reports whether err says the key changed since it was read, or
// was made by another as this process made it.
func conflict(err error) bool {
	var api *jetstream.APIError
	return errors.Is(err, jetstream.ErrKeyExists) || errors.As(err, &api) && api.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequence
}
