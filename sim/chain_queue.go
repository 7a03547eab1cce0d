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
	a.later = heapPush(a.later, e)
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
	var top happening
	top, a.later = heapPop(a.later)
	return top
}
