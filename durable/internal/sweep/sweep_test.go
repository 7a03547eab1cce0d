package sweep

import (
	"testing"
	"time"
)

// TestAPurgeReachesOnlyFloorsAWindowOld reads floors a second apart and
// checks what a purge may reach with a window of three seconds.
func TestAPurgeReachesOnlyFloorsAWindowOld(t *testing.T) {
	var f Floors
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	if got := f.Before(at(10)); got != 0 {
		t.Fatalf("no floors read, purge up to %d", got)
	}
	for s, floor := range []uint64{0, 10, 25, 25, 40} {
		f.Add(at(s), floor)
	}
	for _, c := range []struct {
		now  int
		want uint64
	}{{2, 0}, {3, 0}, {4, 10}, {5, 25}, {6, 25}, {7, 40}, {100, 40}} {
		if got := f.Before(at(c.now - 3)); got != c.want {
			t.Errorf("at %d s, purge up to %d; want %d", c.now, got, c.want)
		}
	}
	if last, ok := f.Last(); !ok || last != 40 {
		t.Errorf("last floor %d, %v; want 40", last, ok)
	}
	if len(f.at) != 1 {
		t.Errorf("%d floors kept; want the one a purge still needs", len(f.at))
	}
}

// TestSweepsComeEveryQuarterWindow checks the bounds of Every.
func TestSweepsComeEveryQuarterWindow(t *testing.T) {
	for w, want := range map[time.Duration]time.Duration{
		time.Second:      time.Second,
		8 * time.Second:  2 * time.Second,
		2 * time.Minute:  30 * time.Second,
		24 * time.Hour:   time.Minute,
		10 * time.Minute: time.Minute,
	} {
		if got := Every(w); got != want {
			t.Errorf("Every(%v) = %v; want %v", w, got, want)
		}
	}
}
