//go:build unix

package dirlock_test

import (
	"errors"
	"fmt"
	"os"

	"github.com/evolvekit/evolve/durable/internal/dirlock"
)

// One queue at a time holds a directory: a second Lock is refused until
// the file of the first is closed.
func ExampleLock() {
	dir, err := os.MkdirTemp("", "dirlock-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)

	f, err := dirlock.Lock(dir)
	fmt.Println("first:", err)
	_, err = dirlock.Lock(dir)
	fmt.Println("second in use:", errors.Is(err, dirlock.ErrInUse))
	f.Close()
	g, err := dirlock.Lock(dir)
	fmt.Println("after close:", err)
	g.Close()
	// Output:
	// first: <nil>
	// second in use: true
	// after close: <nil>
}
