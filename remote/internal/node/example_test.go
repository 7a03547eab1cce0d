package node_test

import (
	"errors"
	"fmt"

	"github.com/evolvekit/evolve/remote/internal/node"
)

// Credentials holds every address a party uses to the loopback rule
// before anything listens or dials.
func ExampleCredentials() {
	creds, err := node.Credentials(nil, false, "127.0.0.1:0", "127.0.0.1:7070")
	fmt.Println(creds == nil, err)
	_, err = node.Credentials(nil, false, "10.0.0.6:0", "10.0.0.5:7070")
	fmt.Println(errors.Is(err, node.ErrConfig))
	// Output:
	// true <nil>
	// true
}
