package sim

import "time"

// step says what an event of a chain run is.
type step uint8

const (
	stepArrive  step = iota + 1 // items arrive
	stepEnd                     // arrivals end
	stepSample                  // the trace takes a sample
	stepDone                    // a piece of work is done
	stepTick                    // a timer fires
	stepPull                    // demand for an agent: a Pull
	stepPass                    // passes for an agent: a Pass
	stepReserve                 // passes reserved of a pacer: a Reservation
	stepLast                    // the agent after a pacer has ended: a Reservation with Last
	stepClose                   // an agent's input ends: a Close
	stepInput                   // items for an agent: an Input
)

// happening is an event of a chain run: something that happens to one of
// its agents at a virtual instant. Events at the same instant happen in the
// order they were scheduled (by seq), so a run is deterministic.
type happening struct {
	at    time.Duration
	seq   uint64
	kind  step
	agent int    // the agent it happens to
	n     uint64 // the work's ID, the timer's tag, or how many
	gen   uint64 // the timer's generation, or the instant the work started
	batch any    // the items of an Input
}

// before orders events by instant, then by the order they were scheduled.
func (e *happening) before(f *happening) bool {
	return e.at < f.at || e.at == f.at && e.seq < f.seq
}

// agenda is the events of a chain run still to come: a binary min-heap for
// those later than now, and a first-in first-out line for those now, which
// are most of them (the messages the agents send one another). Its zero
// value is empty.
type agenda struct {
	later []happening
	now   []happening
	head  int // the first event of now still to come
}

// add adds e, which is not earlier than the instant now.
func (a *agenda) add(e happening, now time.Duration) {
	if e.at == now {
		a.now = append(a.now, e)
		return
	}
	a.later = append(a.later, e)
	i := len(a.later) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !a.later[i].before(&a.later[p]) {
			break
		}
		a.later[i], a.later[p] = a.later[p], a.later[i]
		i = p
	}
}

// next removes and returns the earliest event; a must not be empty (the
// runner counts the events pending).
func (a *agenda) next() happening {
	if a.head < len(a.now) && (len(a.later) == 0 || a.now[a.head].before(&a.later[0])) {
		e := a.now[a.head]
		a.now[a.head] = happening{}
		a.head++
		switch {
		case a.head == len(a.now):
			a.now, a.head = a.now[:0], 0
		case a.head >= 1024 && 2*a.head >= len(a.now):
			n := copy(a.now, a.now[a.head:])
			clear(a.now[n:])
			a.now, a.head = a.now[:n], 0
		}
		return e
	}
	return a.pop()
}

// pop removes and returns the earliest of the later events.
func (a *agenda) pop() happening {
	top := a.later[0]
	last := len(a.later) - 1
	a.later[0] = a.later[last]
	a.later[last] = happening{}
	a.later = a.later[:last]
	n := len(a.later)
	for i := 0; ; {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && a.later[r].before(&a.later[l]) {
			m = r
		}
		if !a.later[m].before(&a.later[i]) {
			break
		}
		a.later[i], a.later[m] = a.later[m], a.later[i]
		i = m
	}
	return top
}
