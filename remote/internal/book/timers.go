package book

import (
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/remote/internal/tagwait"
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
		b.timers[m.Tag-1].Fired(m.At)
		b.expire(m.At)
	case tagWaitTimer:
		b.timers[m.Tag-1].Fired(m.At)
		b.giveUp(m.At)
	case silenceTimer:
		b.sweep(m.At)
	case wantTimer:
		b.wantTick.Fired(m.At)
	default:
		return false
	}
	return true
}

// expire takes back every item whose lease ended by at, as a failed attempt
// ([ErrLeaseExpired]). Its worker keeps it as hung (see hang) and goes on
// with its other slots; the oldest item that waits for a slot of the
// worker starts its lease, since the hung work may never give its slot
// back. A worker not heard from since the lease started may be stopped
// altogether: the items waiting for its slots are taken back too (see
// reclaim).
func (b *Book[I, O, R]) expire(at time.Time) {
	for {
		l, ok := b.leases.Pop(at, b.live)
		if !ok {
			return
		}
		e := b.entry(l.Seq)
		b.unlease(e)
		b.lines[e.tag].fair.Work(l.Seq, b.lease)
		if w := b.member(e.worker); w != nil {
			w.failed++
			b.hang(w, attemptRef{seq: l.Seq, attempt: l.Attempt})
			if w.heard.After(l.Due.Add(-b.lease)) {
				b.start(w, at)
			} else {
				b.reclaim(w)
			}
		}
		if b.retry(l.Seq, e, lostWith(l.Seq, e, ErrLeaseExpired)) {
			b.requeued++
		}
	}
}

// live reports whether item seq is leased under attempt: whether the
// deadline of that attempt counts.
func (b *Book[I, O, R]) live(seq uint64, attempt int) bool {
	e := b.entry(seq)
	return e != nil && e.phase == phaseLeased && e.attempt == attempt
}

// watch notes, at instant at, which lines are stuck (hold items, and no
// registered worker may take them) and since when (see package tagwait).
func (b *Book[I, O, R]) watch(at time.Time) {
	for i := range b.lines {
		b.lines[i].wait.Watch(b.inLine(i) > 0 && b.capable(i) == 0, at)
	}
}

// nextGiveUp returns the earliest instant a stuck line gives up.
func (b *Book[I, O, R]) nextGiveUp() (time.Time, bool) {
	var due time.Time
	found := false
	for i := range b.lines {
		if d, stuck := b.lines[i].wait.Due(b.tagWait); stuck && (!found || d.Before(due)) {
			due, found = d, true
		}
	}
	return due, found
}

// giveUp fails, with [ErrNoWorker], every item of the lines stuck for
// tagWait by at, and bars those lines: until a worker may take their
// items again, the items that come fail at once (see refuse).
func (b *Book[I, O, R]) giveUp(at time.Time) {
	for i := range b.lines {
		if b.lines[i].wait.GiveUp(b.capable(i) > 0, at, b.tagWait) {
			b.fail(i, false)
		}
	}
}

// refuse fails, with [ErrNoWorker], the items of every barred line while
// still no worker may take them.
func (b *Book[I, O, R]) refuse() {
	for i := range b.lines {
		if b.lines[i].wait.Refuses(b.capable(i) > 0) && b.inLine(i) > 0 {
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
		b.conclude(seq, e, none, tagwait.Error(ErrNoWorker, seq, l.tag, b.tagWait, b.registered(i), barred))
	}
}

// arm keeps one timer per tag pending at the earliest instant it is due,
// and none when nothing is: it asks for a Timer when that instant moved,
// and for a Disarm when nothing is due any more.
func (b *Book[I, O, R]) arm(fx []agent.Effect, at time.Time) []agent.Effect {
	l, ok := b.leases.Next(b.live)
	fx = b.timers[leaseTimer-1].Set(fx, leaseTimer, l.Due, ok, at)
	due, ok := b.nextGiveUp()
	return b.timers[tagWaitTimer-1].Set(fx, tagWaitTimer, due, ok, at)
}
