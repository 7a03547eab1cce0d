package loopback_test

import (
	"errors"
	"fmt"

	"github.com/evolvekit/evolve/internal/loopback"
)

// A listener checks its address before it binds: off the loopback, it
// needs TLS or AllowInsecure.
func ExampleRequire() {
	ErrConfig := errors.New("pkg: invalid setting")
	fmt.Println(loopback.Require(ErrConfig, "pkg", "127.0.0.1:7070", "127.0.0.1", false, false))
	err := loopback.Require(ErrConfig, "pkg", "10.0.0.5:7070", "10.0.0.5", false, false)
	fmt.Println(errors.Is(err, ErrConfig))
	// Output:
	// <nil>
	// true
}
