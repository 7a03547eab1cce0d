package grant

import (
	"time"
)

// Config is what a Keeper knows of its process and of the limit.
type Config struct {
	ID     uint64        // the process's, never 0
	Rate   float64       // the limit's, tokens a second: for a table not made yet
	Burst  int           // the limit's
	Period time.Duration // how long a lease lasts
	Margin time.Duration // what clocks may disagree on over a period, and a Set may take to land
}

// The lease of a share that durable's limits use, and what it leaves for
// clocks that run at different rates and for a grant to reach its bucket
// (see Limits in durable's package doc).
const (
	DefaultPeriod = 2 * time.Second
	DefaultMargin = 100 * time.Millisecond
)

// Limit is what a process's bucket may spend: a rate and a burst, until
// an instant of its own clock. The zero Limit spends nothing.
type Limit struct {
	Rate  float64
	Burst int
	Until time.Time
}

// Keeper is one process's side of a shared limit: its lease, the write it
// has in flight, what it has seen of the others' entries and when, and
// what it asks for. [Keeper.Step] takes an event at an instant and returns
// what to do.
type Keeper struct {
	cfg      Config
	lease    Limit               // the bucket's, as last applied
	ver      uint64              // of the process's entry, as last written
	demand   float64             // tokens a second the process would spend
	told     float64             // the demand of its entry, as last taken
	phase    phase               // what is in flight
	sending  Entry               // the entry of the write in flight
	sentAt   time.Time           // when that write was sent
	seen     map[uint64]sighting // the others' entries, by ID
	leaving  bool                // the process lets its share go
	removing bool                // the write in flight removes its entry
	left     bool
}

// sighting is an entry as first read with its version, and when.
type sighting struct {
	ver uint64
	at  time.Time
}

// phase is what a Keeper waits for.
type phase uint8

const (
	idle    phase = iota
	reading       // the table
	writing       // the answer to a compare-and-set
)

// NewKeeper returns the Keeper of a process that holds no share yet.
func NewKeeper(cfg Config) *Keeper {
	return &Keeper{cfg: cfg, seen: make(map[uint64]sighting)}
}

// Events: what the process tells its Keeper.
type (
	// Event is what happened, as Step takes it.
	Event interface{ event() }
	// Renew says it is time to renew the lease: the Keeper's own Arm, or
	// the process's first wish.
	Renew struct{}
	// Read is the table as read: Found false for a limit no process has
	// made yet; Err for a read that failed.
	Read struct {
		Table Table
		Rev   uint64
		Found bool
		Err   error
	}
	// Wrote is the answer to the latest Put: Conflict for a table that
	// another process changed since it was read, Err for a write that
	// failed or went unanswered (it may have been taken all the same).
	Wrote struct {
		Conflict bool
		Err      error
	}
	// Use is what the process would spend, in tokens a second.
	Use struct{ Demand float64 }
	// Leave says the process lets its share go.
	Leave struct{}
)

func (Renew) event() {}
func (Read) event()  {}
func (Wrote) event() {}
func (Use) event()   {}
func (Leave) event() {}

// Actions: what a Keeper asks its process to do, in order.
type (
	// Action is one thing Step asks for.
	Action interface{ action() }
	// Get asks for the table to be read.
	Get struct{}
	// Put asks for Table to be written if the table is still at revision
	// Rev, or, with Create, if there is none yet; the answer is a Wrote.
	Put struct {
		Table  Table
		Rev    uint64
		Create bool
	}
	// Apply asks for the process's bucket to take Limit from now on.
	Apply struct{ Limit Limit }
	// Arm asks for a Renew after Delay, in the place of any pending.
	Arm struct{ Delay time.Duration }
	// Left says the process's entry is gone from the table: its share is
	// the others'.
	Left struct{}
)

func (Get) action()   {}
func (Put) action()   {}
func (Apply) action() {}
func (Arm) action()   {}
func (Left) action()  {}

// Step takes e, which happened at instant at by the process's own
// monotonic clock, and returns what to do.
func (k *Keeper) Step(at time.Time, e Event) []Action {
	if k.left {
		return nil
	}
	switch e := e.(type) {
	case Renew:
		return k.renew()
	case Read:
		return k.read(at, e)
	case Wrote:
		return k.wrote(at, e)
	case Use:
		k.demand = max(e.Demand, 0)
		if k.lease.Rate == 0 && k.demand > k.told {
			// A process with no share and more to do than its entry
			// says asks at once; once it has said so, it waits for
			// its renewal, when the others may have made room.
			return k.renew()
		}
	case Leave:
		k.leaving = true
		acts := []Action{Apply{}}
		k.lease = Limit{}
		return append(acts, k.renew()...)
	}
	return nil
}

// Lease returns what the process may spend, as last applied.
func (k *Keeper) Lease() Limit { return k.lease }

// renew reads the table, unless a read or a write is in flight.
func (k *Keeper) renew() []Action {
	if k.phase != idle {
		return nil
	}
	k.phase = reading
	return []Action{Get{}}
}

// retry is how soon a Keeper whose read or write failed tries again.
func (k *Keeper) retry() time.Duration { return max(k.cfg.Period/10, time.Millisecond) }

// read takes the table as read at instant at, and writes the process's new
// entry: stale entries removed, its share what is fair by the demands and
// free in the table. A smaller share than it spends is applied at once.
func (k *Keeper) read(at time.Time, r Read) []Action {
	if k.phase != reading {
		return nil
	}
	if r.Err != nil {
		k.phase = idle
		return []Action{Arm{Delay: k.retry()}}
	}
	t := r.Table
	if !r.Found {
		t = Table{Rate: k.cfg.Rate, Burst: k.cfg.Burst}
	}
	t = t.without(k.stale(at, t))
	var acts []Action
	k.removing = k.leaving
	if k.leaving {
		t = t.without([]uint64{k.cfg.ID})
	} else {
		e := k.share(t)
		if e.Rate < k.lease.Rate || e.Burst < k.lease.Burst {
			k.lease = Limit{Rate: min(e.Rate, k.lease.Rate), Burst: min(e.Burst, k.lease.Burst), Until: k.lease.Until}
			if k.lease.Rate == 0 || k.lease.Burst == 0 {
				k.lease = Limit{}
			}
			acts = append(acts, Apply{Limit: k.lease})
		}
		t = t.with(e)
		k.sending = e
		// Every write bumps the version, taken or not: a write whose
		// answer was lost may have been taken, and a later one of the
		// same version would look, to the others, like no renewal.
		k.ver = e.Ver
	}
	k.phase, k.sentAt = writing, at
	return append(acts, Put{Table: t, Rev: r.Rev, Create: !r.Found})
}

// stale notes, at instant at, the entries of t other than the process's as
// seen, and returns those unchanged for Period and Margin since first seen.
func (k *Keeper) stale(at time.Time, t Table) []uint64 {
	var out []uint64
	present := make(map[uint64]bool, len(t.Entries))
	for _, e := range t.Entries {
		if e.ID == k.cfg.ID {
			continue
		}
		present[e.ID] = true
		s, ok := k.seen[e.ID]
		if !ok || s.ver != e.Ver {
			k.seen[e.ID] = sighting{ver: e.Ver, at: at}
			continue
		}
		if at.Sub(s.at) >= k.cfg.Period+k.cfg.Margin {
			out = append(out, e.ID)
		}
	}
	for id := range k.seen {
		if !present[id] {
			delete(k.seen, id)
		}
	}
	return out
}

// share returns the process's next entry in t: the fair share of its
// demand, within what the others leave, and a burst in proportion, at
// least 1 for any share; none if no burst is left.
func (k *Keeper) share(t Table) Entry {
	usedRate, usedBurst := t.used(k.cfg.ID)
	rate := min(fair(t, k.cfg.ID, k.demand), max(t.Rate-usedRate, 0))
	burst := 0
	if rate > 0 && t.Rate > 0 {
		burst = min(max(1, int(float64(t.Burst)*rate/t.Rate)), t.Burst-usedBurst)
	}
	if burst < 1 {
		rate, burst = 0, 0
	}
	return Entry{ID: k.cfg.ID, Rate: rate, Burst: burst, Demand: k.demand, Ver: k.ver + 1}
}

// wrote takes the answer to the write sent at sentAt. Taken, its share is
// the process's until sentAt + Period - Margin; refused for a conflict, the
// table is read again at once; failed, it is tried again soon, and the
// lease runs out on its own meanwhile.
func (k *Keeper) wrote(at time.Time, w Wrote) []Action {
	if k.phase != writing {
		return nil
	}
	k.phase = idle
	switch {
	case w.Conflict:
		return k.renew()
	case w.Err != nil:
		return []Action{Arm{Delay: k.retry()}}
	case k.removing:
		k.left = true
		return []Action{Left{}}
	case k.leaving:
		return k.renew() // a renewal was in flight as it was told to leave
	}
	e := k.sending
	k.told = e.Demand
	k.lease = Limit{}
	if e.Rate > 0 && e.Burst > 0 {
		k.lease = Limit{Rate: e.Rate, Burst: e.Burst, Until: k.sentAt.Add(k.cfg.Period - k.cfg.Margin)}
	}
	next := max(k.sentAt.Add(k.cfg.Period/2).Sub(at), 0)
	return []Action{Apply{Limit: k.lease}, Arm{Delay: next}}
}
