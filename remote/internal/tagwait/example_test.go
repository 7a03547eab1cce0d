package tagwait_test

import (
	"errors"
	"fmt"
	"time"

	"github.com/evolvekit/evolve/remote/internal/tagwait"
)

// A line of items that need tag "gpu", at made-up instants: stuck with
// no worker that may take them, it gives up once stuck for its wait, and
// then refuses the items that come until such a worker registers.
func ExampleLine() {
	errNoWorker := errors.New("no worker")
	t0, wait := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), 10*time.Second
	var l tagwait.Line

	l.Watch(true, t0) // items came, and no worker has the tag
	due, stuck := l.Due(wait)
	fmt.Println("stuck:", stuck, "gives up at:", due.Format(time.TimeOnly))
	fmt.Println("gives up at +9s:", l.GiveUp(false, t0.Add(9*time.Second), wait))
	fmt.Println("gives up at +10s:", l.GiveUp(false, t0.Add(wait), wait))
	fmt.Println(tagwait.Error(errNoWorker, 7, "gpu", wait, 0, false))

	fmt.Println("refuses the next item:", l.Refuses(false))
	fmt.Println(tagwait.Error(errNoWorker, 8, "gpu", wait, 0, true))
	fmt.Println("refuses once a gpu worker registers:", l.Refuses(true))
	// Output:
	// stuck: true gives up at: 00:00:10
	// gives up at +9s: false
	// gives up at +10s: true
	// remote: item 7 needs tag "gpu" and waited 10s, and no worker with it registered: no worker
	// refuses the next item: true
	// remote: item 8 needs tag "gpu" and came after items that waited 10s, and no worker with it registered: no worker
	// refuses once a gpu worker registers: false
}
