package sim

import "time"

// kind says what an event is.
type kind uint8

const (
	arrive kind = iota + 1 // items arrive
	finish                 // a piece of work is done
	tick                   // a timer fires
	sample                 // the trace takes a sample
	end                    // arrivals end
	pass                   // passes reserved are granted
)

// event is something that happens at a virtual instant. Events at the same
// instant happen in the order they were scheduled (by seq), so a run is
// deterministic.
type event[R any] struct {
	at   time.Duration
	seq  uint64
	kind kind
	id   uint64        // the work's ID, the timer's tag, or the passes
	gen  uint64        // the timer's generation
	from time.Duration // when the work started
	res  R
	err  error
}

// before orders events by instant, then by the order they were scheduled.
func (e *event[R]) before(f *event[R]) bool {
	return e.at < f.at || e.at == f.at && e.seq < f.seq
}

// queue is a binary min-heap of events, earliest first. Its zero value is
// empty.
type queue[R any] struct {
	ev []event[R]
}

// push adds e.
func (q *queue[R]) push(e event[R]) { q.ev = heapPush(q.ev, e) }

// pop removes and returns the earliest event; q must not be empty.
func (q *queue[R]) pop() event[R] {
	var top event[R]
	top, q.ev = heapPop(q.ev)
	return top
}
