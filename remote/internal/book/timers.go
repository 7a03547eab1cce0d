package book

import (
	"fmt"
	"time"

	"github.com/evolvekit/evolve/agent"
)

// The tags of the master's two timers: one at the earliest lease deadline,
// one at the earliest instant a tag's items give up waiting for a worker.
const (
	leaseTimer   uint64 = 1
	tagWaitTimer uint64 = 2
)

// tick handles the Tick of either timer, at instant at: everything due by
// then is done, whether the Tick is the pending timer's or a stale one. It
// reports false for a Tick of another tag.
func (b *Book[I, O, R]) tick(m agent.Tick) bool {
	switch m.Tag {
	case leaseTimer:
		b.fired(m.Tag, m.At)
		b.expire(m.At)
	case tagWaitTimer:
		b.fired(m.Tag, m.At)
		b.giveUp(m.At)
	case silenceTimer:
		b.sweep(m.At)
	case wantTimer:
		b.wantFired(m.At)
	default:
		return false
	}
	return true
}

// fired notes that the timer tag has fired if it was due by at.
func (b *Book[I, O, R]) fired(tag uint64, at time.Time) {
	if t := &b.timers[tag-1]; t.on && !t.due.After(at) {
		t.on = false
	}
}

// expire takes back every item whose lease ended by at, as a failed attempt
// ([ErrLeaseExpired]). Its worker keeps it as hung (see hang) and goes on
// with its other slots; the oldest item that waits for a slot of the
// worker starts its lease, since the hung work may never give its slot
// back. A worker not heard from since the lease started may be stopped
// altogether: the items waiting for its slots are taken back too (see
// reclaim).
func (b *Book[I, O, R]) expire(at time.Time) {
	for b.leases.Len() > 0 {
		l := *b.leases.At(0)
		live := b.live(l)
		if live && l.due.After(at) {
			return
		}
		b.leases.PopFront()
		if !live {
			continue
		}
		e := b.entry(l.seq)
		b.unlease(e)
		b.lines[e.tag].fair.Work(l.seq, b.lease)
		if w := b.member(e.worker); w != nil {
			w.failed++
			b.hang(w, attemptRef{seq: l.seq, attempt: l.attempt})
			if w.heard.After(l.due.Add(-b.lease)) {
				b.start(w, at)
			} else {
				b.reclaim(w)
			}
		}
		if b.retry(l.seq, e, lostWith(l.seq, e, ErrLeaseExpired)) {
			b.requeued++
		}
	}
}

// live reports whether l is the lease of its item's current attempt.
func (b *Book[I, O, R]) live(l leaseEnd) bool {
	e := b.entry(l.seq)
	return e != nil && e.phase == phaseLeased && e.attempt == l.attempt
}

// nextLease returns the earliest deadline of a live lease, dropping the
// leases ahead of it that no longer count. Leases are kept in the order
// they were given, which is that of their deadlines as long as messages
// come at instants that do not go back.
func (b *Book[I, O, R]) nextLease() (time.Time, bool) {
	for b.leases.Len() > 0 {
		if l := b.leases.At(0); b.live(*l) {
			return l.due, true
		}
		b.leases.PopFront()
	}
	return time.Time{}, false
}

// watch notes, at instant at, which lines are stuck (hold items, and no
// registered worker may take them) and since when.
func (b *Book[I, O, R]) watch(at time.Time) {
	for i := range b.lines {
		l := &b.lines[i]
		stuck := b.inLine(i) > 0 && b.capable(i) == 0
		if stuck && !l.stuck {
			l.since = at
		}
		l.stuck = stuck
	}
}

// nextGiveUp returns the earliest instant a stuck line gives up.
func (b *Book[I, O, R]) nextGiveUp() (time.Time, bool) {
	var due time.Time
	found := false
	for i := range b.lines {
		if l := &b.lines[i]; l.stuck {
			if d := l.since.Add(b.tagWait); !found || d.Before(due) {
				due, found = d, true
			}
		}
	}
	return due, found
}

// giveUp fails, with [ErrNoWorker], every item of the lines stuck for
// tagWait by at, and bars those lines: until a worker may take their
// items again, the items that come fail at once (see refuse).
func (b *Book[I, O, R]) giveUp(at time.Time) {
	for i := range b.lines {
		l := &b.lines[i]
		if !l.stuck || b.capable(i) > 0 || l.since.Add(b.tagWait).After(at) {
			continue
		}
		b.fail(i, false)
		l.stuck, l.barred = false, true
	}
}

// refuse fails, with [ErrNoWorker], the items of every barred line while
// still no worker may take them: they would wait a TagWait each for
// nothing. A line that a worker may take from again is no longer barred,
// and its items wait for it as any do.
func (b *Book[I, O, R]) refuse() {
	for i := range b.lines {
		l := &b.lines[i]
		switch {
		case !l.barred:
		case b.capable(i) > 0:
			l.barred = false
		case b.inLine(i) > 0:
			b.fail(i, true)
		}
	}
}

// fail fails every item of line i, which no worker may take: it waited
// tagWait for one, or came to a barred line.
func (b *Book[I, O, R]) fail(i int, barred bool) {
	b.flush(i)
	l := &b.lines[i]
	for l.seqs.Len() > 0 {
		seq := l.seqs.PopFront()
		e := b.entry(seq)
		b.unqueue(e)
		var none O
		b.conclude(seq, e, none, b.noWorker(seq, i, barred))
	}
}

// noWorker returns the error of item seq, of line i, which waited tagWait
// for a worker that may take it, or came to the line barred after others
// did.
func (b *Book[I, O, R]) noWorker(seq uint64, i int, barred bool) error {
	waited := fmt.Sprintf("waited %v", b.tagWait)
	if barred {
		waited = fmt.Sprintf("came after items that waited %v", b.tagWait)
	}
	tag := b.lines[i].tag
	switch {
	case b.registered(i) > 0:
		return fmt.Errorf("remote: item %d %s, and every worker that may take it has all its slots hung: %w", seq, waited, ErrNoWorker)
	case tag == "":
		return fmt.Errorf("remote: item %d %s and no worker registered: %w", seq, waited, ErrNoWorker)
	}
	return fmt.Errorf("remote: item %d needs tag %q and %s, and no worker with it registered: %w", seq, tag, waited, ErrNoWorker)
}

// arm keeps one timer per tag pending at the earliest instant it is due,
// and none when nothing is: it asks for a Timer when that instant moved,
// and for a Disarm when nothing is due any more.
func (b *Book[I, O, R]) arm(fx []agent.Effect, at time.Time) []agent.Effect {
	due, ok := b.nextLease()
	fx = b.set(fx, leaseTimer, due, ok, at)
	due, ok = b.nextGiveUp()
	return b.set(fx, tagWaitTimer, due, ok, at)
}

// set arms the timer tag for due (or disarms it if !ok), at instant at,
// unless it is pending for due already.
func (b *Book[I, O, R]) set(fx []agent.Effect, tag uint64, due time.Time, ok bool, at time.Time) []agent.Effect {
	t := &b.timers[tag-1]
	switch {
	case !ok && t.on:
		t.on = false
		return withEffect(fx, agent.Disarm{Tag: tag})
	case !ok || t.on && t.due.Equal(due):
		return fx
	}
	t.on, t.due = true, due
	return withEffect(fx, agent.Timer{Tag: tag, Delay: max(due.Sub(at), 0)})
}
