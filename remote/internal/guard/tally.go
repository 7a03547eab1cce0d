package guard

import (
	"sync"
	"time"
)

// Tally gathers refusals by the name of who refused them, and reports
// them at most once an interval, however fast they come: a peer that
// floods a node with refused messages costs it one report an interval.
type Tally struct {
	every  time.Duration
	report func(counts map[string]int, last string)

	mu      sync.Mutex
	counts  map[string]int
	last    string
	timer   *time.Timer
	armed   bool
	stopped bool
}

// NewTally returns a Tally that calls report, on a goroutine of its own,
// with the refusals counted since its last call, by name, and the reason
// of the last of them, every interval in which there were some.
func NewTally(every time.Duration, report func(counts map[string]int, last string)) *Tally {
	t := &Tally{every: every, report: report, counts: make(map[string]int)}
	t.timer = time.AfterFunc(time.Hour, t.flush)
	t.timer.Stop()
	return t
}

// Add counts one refusal by name, for the reason why.
func (t *Tally) Add(name, why string) {
	t.mu.Lock()
	t.counts[name]++
	t.last = why
	arm := !t.armed && !t.stopped
	t.armed = t.armed || arm
	t.mu.Unlock()
	if arm {
		t.timer.Reset(t.every)
	}
}

// flush reports what was counted.
func (t *Tally) flush() {
	t.mu.Lock()
	counts, last := t.counts, t.last
	t.counts, t.armed = make(map[string]int), false
	t.mu.Unlock()
	if len(counts) > 0 {
		t.report(counts, last)
	}
}

// Stop reports what is counted and not yet reported, and reports nothing
// after.
func (t *Tally) Stop() {
	t.mu.Lock()
	t.stopped = true
	t.mu.Unlock()
	t.timer.Stop()
	t.flush()
}
