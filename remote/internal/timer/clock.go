package timer

import (
	"maps"
	"math"
	"time"
)

// Clock stamps instants as Instants: the nanoseconds from the first
// instant it stamped, its epoch, plain numbers that hold no pointer (a
// time.Time holds one, to its location), so that a book's records stay
// small and the garbage collector need not scan them. Time turns an
// Instant back into a time.Time equal to the one stamped (Equal), with a
// monotonic clock reading if it had one: compared with or subtracted from
// instants that have one too, or with none that have none, it is the
// instant stamped. An instant so far from the epoch (about 292 years) that
// its distance does not fit in a time.Duration, or one whose monotonic
// reading the epoch lacks or the reverse, is kept whole, by a key the
// caller gives, until the caller forgets it. The zero Clock has no epoch
// yet.
type Clock struct {
	epoch     time.Time
	set, mono bool                 // mono: the epoch has a monotonic reading
	far       map[uint64]time.Time // the instants kept whole, by key
}

// Instant is an instant a Clock stamped.
type Instant int64

// far is the Instant of an instant kept whole.
const far Instant = math.MinInt64

// Stamp returns t as an Instant, kept whole under key if need be: until
// Forget, or the next Stamp under key of an instant kept whole.
func (c *Clock) Stamp(key uint64, t time.Time) Instant {
	if !c.set {
		c.epoch, c.set, c.mono = t, true, monotonic(t)
	}
	// Sub is exact unless it saturates; it subtracts the monotonic
	// readings if both have one, and the wall clock readings otherwise.
	if d := t.Sub(c.epoch); d != math.MinInt64 && d != math.MaxInt64 && monotonic(t) == c.mono {
		return Instant(d)
	}
	if c.far == nil {
		c.far = map[uint64]time.Time{}
	}
	c.far[key] = t
	return far
}

// Time returns the instant i stamped under key.
func (c *Clock) Time(key uint64, i Instant) time.Time {
	if i == far {
		return c.far[key]
	}
	return c.epoch.Add(time.Duration(i))
}

// Since returns the time from the instant i stamped under key to at, as
// at.Sub(Time(key, i)) does, sparing the time.Time it makes.
func (c *Clock) Since(key uint64, i Instant, at time.Time) time.Duration {
	if d := at.Sub(c.epoch); i != far && d != math.MinInt64 && d != math.MaxInt64 && monotonic(at) == c.mono {
		if r := d - time.Duration(i); (r < d) == (i > 0) {
			return r
		}
	}
	return at.Sub(c.Time(key, i))
}

// Forget lets go of the instant i stamped under key, if it was kept whole.
func (c *Clock) Forget(key uint64, i Instant) {
	if i == far {
		delete(c.far, key)
	}
}

// Clone returns a copy of c that shares nothing with it.
func (c *Clock) Clone() Clock {
	d := *c
	d.far = maps.Clone(c.far)
	return d
}

// monotonic reports whether t has a monotonic clock reading, which
// Round(0) strips.
func monotonic(t time.Time) bool { return t != t.Round(0) }
