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
	live := func(seq uint64, _ int) bool { return seq != 0 }
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
	if e, ok := c.Next(func(uint64, int) bool { return true }); !ok || e.Seq != 0 {
		t.Errorf("the clone's Next = %v, %v; want item 0, as it was", e, ok)
	}
}

func TestAClockGivesBackTheInstantsItStamped(t *testing.T) {
	now := time.Now() // with a monotonic reading
	for _, epoch := range []time.Time{time.Unix(1000, 0), now, {}} {
		var c timer.Clock
		c.Stamp(0, epoch)
		for k, at := range []time.Time{epoch, epoch.Add(time.Hour), epoch.Add(-time.Minute),
			time.Unix(1000, 7).UTC(), now.Add(time.Second), now.Round(0), {}, time.Date(2400, 1, 1, 0, 0, 0, 0, time.UTC)} {
			i := c.Stamp(uint64(k), at)
			back := c.Time(uint64(k), i)
			if !back.Equal(at) || (back == back.Round(0)) != (at == at.Round(0)) {
				t.Errorf("epoch %v: stamped %v, got back %v", epoch, at, back)
			}
			c.Forget(uint64(k), i)
		}
	}
}

func TestDeadlinesFarApartAreKeptWhole(t *testing.T) {
	var d timer.Deadlines
	t0 := time.Unix(1000, 0)
	far := time.Date(2500, 1, 1, 0, 0, 0, 0, time.UTC)
	d.Add(1, 1, t0)
	d.Add(2, 1, far)
	d.Add(3, 1, far.Add(time.Second))
	all := func(uint64, int) bool { return true }
	c := d.Clone()
	for _, want := range []timer.End{{Seq: 1, Attempt: 1, Due: t0}, {Seq: 2, Attempt: 1, Due: far}, {Seq: 3, Attempt: 1, Due: far.Add(time.Second)}} {
		e, ok := d.Pop(far.Add(time.Hour), all)
		if !ok || e.Seq != want.Seq || !e.Due.Equal(want.Due) {
			t.Fatalf("Pop = %v, %v; want %v", e, ok, want)
		}
	}
	if e, ok := c.Next(func(seq uint64, _ int) bool { return seq == 2 }); !ok || !e.Due.Equal(far) {
		t.Errorf("the clone's Next = %v, %v; want item 2 at %v", e, ok, far)
	}
}

func TestAClockTellsTheTimeSinceAnInstantAsSubDoes(t *testing.T) {
	now := time.Now()
	for _, epoch := range []time.Time{time.Unix(1000, 0), now, {}} {
		var c timer.Clock
		c.Stamp(0, epoch)
		for k, at := range []time.Time{epoch, epoch.Add(time.Hour), time.Unix(1000, 7), now.Add(time.Second), now.Round(0), {}} {
			i := c.Stamp(uint64(k), at)
			for _, then := range []time.Time{at, at.Add(time.Minute), at.Add(-time.Minute), now, time.Unix(2000, 0), {}} {
				if got, want := c.Since(uint64(k), i, then), then.Sub(at); got != want {
					t.Errorf("epoch %v: from %v to %v: %v, want %v", epoch, at, then, got, want)
				}
			}
		}
	}
}
