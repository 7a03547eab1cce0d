package intake_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/evolvekit/evolve/durable/internal/intake"
)

// TestWaitsDoubleUpToIdleWait checks the waits of fetches that find
// nothing: FirstWait, twice as long each time up to IdleWait, and
// FirstWait again once items came.
func TestWaitsDoubleUpToIdleWait(t *testing.T) {
	var w intake.Waits
	want := []time.Duration{5, 10, 20, 40, 80, 160, 250, 250}
	for i, d := range want {
		if got := w.Next(); got != d*time.Millisecond {
			t.Fatalf("wait %d = %v, want %v", i, got, d*time.Millisecond)
		}
	}
	w.Came()
	if got := w.Next(); got != intake.FirstWait {
		t.Errorf("wait after items came = %v, want %v", got, intake.FirstWait)
	}
}

// TestRunEndsOnTheFirstErrorThatIsNotTheServers runs steps that fail: an
// error of the servers is asked again after IdleWait, any other ends the
// run with it, and a step that reports the run over ends it with nil.
func TestRunEndsOnTheFirstErrorThatIsNotTheServers(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	bad := errors.New("bad")
	calls := 0
	err := intake.Run(ctx, func(context.Context) (bool, error) {
		calls++
		if calls == 1 {
			return false, intake.Unavailable{Err: errors.New("no leader")}
		}
		return false, bad
	})
	if !errors.Is(err, bad) || calls != 2 {
		t.Errorf("Run = %v after %d steps; want bad after 2", err, calls)
	}
	calls = 0
	err = intake.Run(ctx, func(context.Context) (bool, error) {
		calls++
		return calls == 3, nil
	})
	if err != nil || calls != 3 {
		t.Errorf("Run = %v after %d steps; want nil after 3", err, calls)
	}
}
