package starved_test

import (
	"os"
	"time"

	"github.com/evolvekit/evolve/examples/mailer/internal/starved"
)

// The watch says once when emails wait with no worker registered, and
// again once one has registered.
func Example() {
	w := &starved.Watch{Out: os.Stdout, Wait: time.Minute, Command: func() string { return "mailer -worker -master ADDR" }}
	at := time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)
	w.Note(starved.Stage{}, true, at)
	w.Note(starved.Stage{}, true, at.Add(time.Second))
	w.Note(starved.Stage{Workers: 1}, true, at.Add(2*time.Second))
	// Output:
	// mailer: no worker registered: the emails wait for one; start one with: mailer -worker -master ADDR
	// mailer: 1 workers registered: the emails go on
}
