package timer_test

import (
	"testing"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/remote/internal/timer"
)

// TestPendingAsksOnlyForChanges sets a timer at made-up instants: it is
// armed for a new instant, left alone for the same one, disarmed when
// nothing is due, and a Tick before its instant is stale.
func TestPendingAsksOnlyForChanges(t *testing.T) {
	t0 := time.Unix(1000, 0)
	var p timer.Pending
	if fx := p.Set(nil, 7, t0, false, t0); len(fx) != 0 {
		t.Fatalf("nothing due, none pending: %v", fx)
	}
	fx := p.Set(nil, 7, t0.Add(time.Second), true, t0)
	if len(fx) != 1 || fx[0] != (agent.Timer{Tag: 7, Delay: time.Second}) || !p.On() {
		t.Fatalf("armed: %v", fx)
	}
	if fx := p.Set(nil, 7, t0.Add(time.Second), true, t0.Add(time.Millisecond)); len(fx) != 0 {
		t.Fatalf("set again for the same instant: %v", fx)
	}
	if p.Fired(t0.Add(time.Millisecond)) || !p.On() {
		t.Fatal("a stale Tick fired the timer")
	}
	if fx := p.Set(nil, 7, time.Time{}, false, t0); len(fx) != 1 || fx[0] != (agent.Disarm{Tag: 7}) || p.On() {
		t.Fatalf("disarmed: %v", fx)
	}
	p.Arm(nil, 7, t0, t0.Add(time.Second))
	if !p.Fired(t0.Add(time.Second)) || p.On() {
		t.Fatal("a timer due by the Tick did not fire")
	}
}

// TestDeadlinesSkipThoseThatNoLongerCount adds three deadlines, of which
// the first no longer counts: Next and Pop skip it, and Pop takes only
// what is due.
func TestDeadlinesSkipThoseThatNoLongerCount(t *testing.T) {
	t0 := time.Unix(1000, 0)
	var d timer.Deadlines
	for i := range 3 {
		d.Add(uint64(i), 1, t0.Add(time.Duration(i)*time.Second))
	}
	live := func(e timer.End) bool { return e.Seq != 0 }
	c := d.Clone()
	if e, ok := d.Next(live); !ok || e.Seq != 1 {
		t.Fatalf("Next = %v, %v; want item 1", e, ok)
	}
	if _, ok := d.Pop(t0.Add(500*time.Millisecond), live); ok {
		t.Fatal("popped a deadline not yet due")
	}
	if e, ok := d.Pop(t0.Add(time.Second), live); !ok || e.Seq != 1 {
		t.Fatalf("Pop = %v, %v; want item 1", e, ok)
	}
	if e, ok := c.Next(func(timer.End) bool { return true }); !ok || e.Seq != 0 {
		t.Errorf("the clone's Next = %v, %v; want item 0, as it was", e, ok)
	}
}
