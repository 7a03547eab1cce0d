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
func (q *queue[R]) push(e event[R]) {
	q.ev = append(q.ev, e)
	i := len(q.ev) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !q.ev[i].before(&q.ev[p]) {
			break
		}
		q.ev[i], q.ev[p] = q.ev[p], q.ev[i]
		i = p
	}
}

// pop removes and returns the earliest event; q must not be empty.
func (q *queue[R]) pop() event[R] {
	top := q.ev[0]
	last := len(q.ev) - 1
	q.ev[0] = q.ev[last]
	q.ev[last] = event[R]{}
	q.ev = q.ev[:last]
	q.down(0)
	return top
}

// down moves the event at i down to its place.
func (q *queue[R]) down(i int) {
	n := len(q.ev)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && q.ev[r].before(&q.ev[l]) {
			m = r
		}
		if !q.ev[m].before(&q.ev[i]) {
			return
		}
		q.ev[i], q.ev[m] = q.ev[m], q.ev[i]
		i = m
	}
}
