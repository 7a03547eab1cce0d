package safe_test

import (
	"errors"
	"fmt"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/internal/safe"
)

func Example() {
	err := safe.Do(func() { panic("out of ink") })
	var pe *agent.PanicError
	fmt.Println(errors.As(err, &pe), pe.Value, len(pe.Stack) > 0)
	fmt.Println(safe.Do(func() {}))
	// Output:
	// true out of ink true
	// <nil>
}
