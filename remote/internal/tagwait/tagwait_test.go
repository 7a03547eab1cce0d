package tagwait_test

import (
	"errors"
	"testing"
	"time"

	"github.com/evolvekit/evolve/remote/internal/tagwait"
)

// TestALineGivesUpAfterItsWaitAndIsBarred steps a line at made-up
// instants: stuck at t0, it gives up only once stuck for the wait with
// still no worker, then refuses items until a worker may take them.
func TestALineGivesUpAfterItsWaitAndIsBarred(t *testing.T) {
	t0, wait := time.Unix(1000, 0), 10*time.Second
	var l tagwait.Line
	if _, stuck := l.Due(wait); stuck || l.Refuses(false) {
		t.Fatal("the zero Line is stuck or barred")
	}
	l.Watch(true, t0)
	l.Watch(true, t0.Add(time.Second)) // still stuck: since t0
	if due, stuck := l.Due(wait); !stuck || !due.Equal(t0.Add(wait)) {
		t.Fatalf("Due = %v, %v; want t0+wait", due, stuck)
	}
	if l.GiveUp(false, t0.Add(wait-time.Millisecond), wait) || l.GiveUp(true, t0.Add(wait), wait) {
		t.Fatal("gave up before its wait, or with a worker that may take its items")
	}
	if !l.GiveUp(false, t0.Add(wait), wait) || !l.Refuses(false) {
		t.Fatal("did not give up and bar the line after its wait")
	}
	if _, stuck := l.Due(wait); stuck {
		t.Fatal("a line that gave up is still stuck")
	}
	if l.Refuses(true) || l.Refuses(false) {
		t.Error("a line a worker may take from again is still barred")
	}
}

// TestErrorSaysWhyNoWorkerTookTheItem checks the three cases of Error,
// each wrapping its kind.
func TestErrorSaysWhyNoWorkerTookTheItem(t *testing.T) {
	kind := errors.New("no worker")
	for _, c := range []struct {
		tag        string
		registered int
		barred     bool
		want       string
	}{
		{"", 0, false, "remote: item 7 waited 1s and no worker registered: no worker"},
		{"gpu", 0, true, `remote: item 7 needs tag "gpu" and came after items that waited 1s, and no worker with it registered: no worker`},
		{"gpu", 2, false, "remote: item 7 waited 1s, and every worker that may take it has all its slots hung: no worker"},
	} {
		err := tagwait.Error(kind, 7, c.tag, time.Second, c.registered, c.barred)
		if !errors.Is(err, kind) || err.Error() != c.want {
			t.Errorf("Error = %q; want %q, wrapping its kind", err, c.want)
		}
	}
}
