package natslog_test

import (
	"fmt"

	"github.com/evolvekit/evolve/durable/internal/natslog"
	"github.com/nats-io/nats-server/v2/server"
)

// A Log is the logger an embedded server is given: it keeps the server's
// last warnings and errors, for an error of Open to say.
func Example() {
	var l natslog.Log
	var _ server.Logger = &l // what srv.SetLogger takes

	l.Noticef("Starting nats-server") // dropped
	fmt.Printf("nothing kept: %q\n", l.Suffix())
	l.Warnf("Filestore [%s] detected corrupt block %d", "q", 3)
	l.Errorf("Error recovering stream %q", "q")
	fmt.Println("the store could not be opened" + l.Suffix())
	fmt.Println("failed:", l.Failed())
	l.Fatalf("Can't start JetStream")
	fmt.Println("failed:", l.Failed())
	// Output:
	// nothing kept: ""
	// the store could not be opened: Filestore [q] detected corrupt block 3; Error recovering stream "q"
	// failed: false
	// failed: true
}
