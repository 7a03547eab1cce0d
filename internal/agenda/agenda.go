// Package agenda is the queue of events of a run in virtual time, as
// package sim keeps one: events come out in the order of their instants,
// and those of one instant in the order they were added, so that a run is
// deterministic.
package agenda

import "time"

// Agenda is the events still to come: a binary min-heap for those later
// than the instant now, and a first-in first-out line for those now,
// which are most of them (the messages agents send one another). Its zero
// value is empty. It is not safe for concurrent use.
type Agenda[E any] struct {
	later []entry[E]
	now   []entry[E]
	head  int    // the first event of now still to come
	seq   uint64 // the order in which the next event is added
}

// entry is an event with its instant and the order it was added in.
type entry[E any] struct {
	at  time.Duration
	seq uint64
	e   E
}

// before orders entries by instant, then by the order they were added.
func (e *entry[E]) before(f *entry[E]) bool {
	return e.at < f.at || e.at == f.at && e.seq < f.seq
}

// Add adds the event e at instant at, which is not earlier than now, the
// instant of the event taken last, after the events already added for it.
func (a *Agenda[E]) Add(at, now time.Duration, e E) {
	n := entry[E]{at: at, seq: a.seq, e: e}
	a.seq++
	if at == now {
		a.now = append(a.now, n)
		return
	}
	a.push(n)
}

// Next removes the earliest event and returns it with its instant; the
// agenda must not be empty (its user counts the events to come).
func (a *Agenda[E]) Next() (time.Duration, E) {
	if a.head < len(a.now) && (len(a.later) == 0 || a.now[a.head].before(&a.later[0])) {
		n := a.now[a.head]
		a.now[a.head] = entry[E]{}
		a.head++
		switch {
		case a.head == len(a.now):
			a.now, a.head = a.now[:0], 0
		case a.head >= 1024 && 2*a.head >= len(a.now):
			k := copy(a.now, a.now[a.head:])
			clear(a.now[k:])
			a.now, a.head = a.now[:k], 0
		}
		return n.at, n.e
	}
	n := a.pop()
	return n.at, n.e
}

// push adds n to the heap of later events.
func (a *Agenda[E]) push(n entry[E]) {
	h := append(a.later, n)
	for i := len(h) - 1; i > 0; {
		p := (i - 1) / 2
		if !h[i].before(&h[p]) {
			break
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
	a.later = h
}

// pop removes and returns the earliest of the later events, of which there
// must be one.
func (a *Agenda[E]) pop() entry[E] {
	h := a.later
	top, last := h[0], len(h)-1
	h[0], h[last] = h[last], entry[E]{} // let go of what it holds
	h = h[:last]
	for i := 0; ; {
		l := 2*i + 1
		if l >= last {
			break
		}
		m := l
		if r := l + 1; r < last && h[r].before(&h[l]) {
			m = r
		}
		if !h[m].before(&h[i]) {
			break
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
	a.later = h
	return top
}
