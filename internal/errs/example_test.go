package errs_test

import (
	"errors"
	"fmt"

	"github.com/evolvekit/evolve/internal/errs"
)

// A package keeps one sentinel for its settings and builds each error with
// Invalid, so the message names the setting and errors.Is finds the kind.
func ExampleInvalid() {
	ErrConfig := errors.New("pkg: invalid setting")
	err := errs.Invalid(ErrConfig, "pkg", "limit must be at least 1, got %d", 0)
	fmt.Println(err)
	fmt.Println(errors.Is(err, ErrConfig))
	// Output:
	// pkg: limit must be at least 1, got 0
	// true
}
