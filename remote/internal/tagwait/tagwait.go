// Package tagwait keeps how long each line of a remote stage's book (the
// items of one tag) has waited for a worker that may take its items: a
// line is stuck while it holds items and no registered worker may take
// them, less those with every slot hung; stuck for TagWait, it gives up,
// its items fail with ErrNoWorker, and it is barred: until a worker may
// take its items again, those that come fail at once, rather than wait a
// TagWait each for nothing. Time comes as an argument, at made-up
// instants in tests.
package tagwait

import (
	"fmt"
	"time"
)

// Line is the wait of one line. The zero Line is neither stuck nor
// barred.
type Line struct {
	stuck  bool
	since  time.Time // when it became stuck
	barred bool
}

// Watch notes, at instant at, whether the line is stuck now: it holds
// items, and no worker may take them.
func (l *Line) Watch(stuck bool, at time.Time) {
	if stuck && !l.stuck {
		l.since = at
	}
	l.stuck = stuck
}

// Due returns the instant the line gives up, wait after it became stuck,
// and whether it is stuck.
func (l *Line) Due(wait time.Duration) (time.Time, bool) { return l.since.Add(wait), l.stuck }

// GiveUp reports whether the line gives up at instant at: it has been
// stuck for wait, and still no worker may take its items (capable is
// false). It is barred from then on, and no longer stuck.
func (l *Line) GiveUp(capable bool, at time.Time, wait time.Duration) bool {
	if !l.stuck || capable || l.since.Add(wait).After(at) {
		return false
	}
	l.stuck, l.barred = false, true
	return true
}

// Refuses reports whether the items of the line fail as they come: it is
// barred, and still no worker may take them (capable is false). A line a
// worker may take from again is no longer barred.
func (l *Line) Refuses(capable bool) bool {
	if capable {
		l.barred = false
	}
	return l.barred
}

// Error returns the error, wrapping kind (ErrNoWorker), of item seq of
// the line of tag, which waited wait for a worker that may take it, or
// came to the line barred after others did; registered counts the
// workers registered that may take it, all of whose slots are hung then.
func Error(kind error, seq uint64, tag string, wait time.Duration, registered int, barred bool) error {
	waited := fmt.Sprintf("waited %v", wait)
	if barred {
		waited = fmt.Sprintf("came after items that waited %v", wait)
	}
	switch {
	case registered > 0:
		return fmt.Errorf("remote: item %d %s, and every worker that may take it has all its slots hung: %w", seq, waited, kind)
	case tag == "":
		return fmt.Errorf("remote: item %d %s and no worker registered: %w", seq, waited, kind)
	}
	return fmt.Errorf("remote: item %d needs tag %q and %s, and no worker with it registered: %w", seq, tag, waited, kind)
}
