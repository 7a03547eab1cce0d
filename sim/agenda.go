package sim

import "time"

// eventKind says what an event of a run is.
type eventKind uint8

const (
	evArrive  eventKind = iota + 1 // items arrive
	evEnd                          // arrivals end
	evSample                       // the traces take a sample
	evDone                         // a piece of work is done
	evTick                         // a timer fires
	evPull                         // demand for an agent: a Pull
	evPass                         // passes for an agent: a Pass
	evReserve                      // passes reserved of a pacer: a Reservation
	evLast                         // the agent after a pacer has ended: a Reservation with Last
	evClose                        // an agent's input ends: a Close
	evInput                        // items for an agent: an Input
	evShared                       // work served by processor sharing may be done
	evPaced                        // the agent after a pacer is told so: a Paced
)

// event is something that happens to a run, or to one of its agents, at a
// virtual instant. Events at the same instant happen in the order they
// were scheduled (by seq), so a run is deterministic.
type event struct {
	at    time.Duration
	seq   uint64
	kind  eventKind
	agent int    // the agent it happens to
	n     uint64 // the work's ID, the timer's tag, or how many
	gen   uint64 // the generation of the timer, or of the wake-up
	batch any    // the items of an Input
}

// before orders events by instant, then by the order they were scheduled.
func (e *event) before(f *event) bool {
	return e.at < f.at || e.at == f.at && e.seq < f.seq
}

// agenda is the events of a run still to come: a binary min-heap for those
// later than now, and a first-in first-out line for those now, which are
// most of them (the messages the agents send one another). Its zero value
// is empty.
type agenda struct {
	later []event
	now   []event
	head  int // the first event of now still to come
}

// add adds e, which is not earlier than the instant now.
func (a *agenda) add(e event, now time.Duration) {
	if e.at == now {
		a.now = append(a.now, e)
		return
	}
	a.push(e)
}

// next removes and returns the earliest event; a must not be empty (the
// runner counts the events pending).
func (a *agenda) next() event {
	if a.head < len(a.now) && (len(a.later) == 0 || a.now[a.head].before(&a.later[0])) {
		e := a.now[a.head]
		a.now[a.head] = event{}
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

// push adds e to the heap of later events.
func (a *agenda) push(e event) {
	h := append(a.later, e)
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
func (a *agenda) pop() event {
	h := a.later
	top, last := h[0], len(h)-1
	h[0], h[last] = h[last], event{} // let go of what it holds
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
