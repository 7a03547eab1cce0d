package worker

import (
	"sync"

	"github.com/evolvekit/evolve/internal/fifo"
)

// line is where a worker's tasks wait for a slot: those taken from the
// master and not started, at most room of them, oldest first. A slot with
// nothing to do parks; a task that comes wakes a parked slot only if no
// slot is awake to take it, and a slot that takes a task and leaves others
// behind wakes the next, unless another is awake. So quick work, which
// ends before a slot could be woken, runs on the few slots awake, without a
// wake per task, and slow work still spreads over every slot, one wake
// after the other.
type line struct {
	mu     sync.Mutex
	tasks  fifo.Deque[task]
	room   int
	awake  int             // slots not parked and not at work: about to look at tasks
	parked []chan struct{} // each parked slot's wake-up, last parked last
	closed bool
}

// newLine returns the line of a worker with slots slots and room for room
// tasks.
func newLine(slots, room int) *line {
	return &line{room: room, parked: make([]chan struct{}, 0, slots)}
}

// put adds the tasks that fit, in order, and returns how many did.
func (l *line) put(jobs []task) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := min(len(jobs), max(l.room-l.tasks.Len(), 0))
	for _, j := range jobs[:n] {
		l.tasks.PushBack(j)
	}
	if n > 0 && l.awake == 0 {
		l.wakeOne()
	}
	return n
}

// take waits for the next task and returns it, as the slot whose wake-up
// is wake (a channel with room for one) asks, having done its last; it
// reports false once the line is closed and empty.
func (l *line) take(wake chan struct{}) (task, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.awake++
	for {
		if l.tasks.Len() > 0 {
			j := l.tasks.PopFront()
			l.awake--
			if l.tasks.Len() > 0 && l.awake == 0 {
				l.wakeOne()
			}
			return j, true
		}
		if l.closed {
			l.awake--
			return task{}, false
		}
		l.awake--
		l.parked = append(l.parked, wake)
		l.mu.Unlock()
		<-wake
		l.mu.Lock()
	}
}

// wakeOne wakes the slot parked last, if any, counting it awake. The
// caller holds mu.
func (l *line) wakeOne() {
	if n := len(l.parked); n > 0 {
		wake := l.parked[n-1]
		l.parked = l.parked[:n-1]
		l.awake++
		wake <- struct{}{}
	}
}

// close lets the slots return once no task is left: it wakes them all.
func (l *line) close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.closed = true
	for len(l.parked) > 0 {
		l.wakeOne()
	}
}
