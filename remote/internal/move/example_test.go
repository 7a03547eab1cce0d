package move_test

import (
	"errors"
	"fmt"

	"github.com/evolvekit/evolve/remote/internal/move"
)

// Work asks for its item to go on with a worker that holds "gpu"; the
// worker checks the next input's type, and the master, once the item
// moved too often, fails it naming its path.
func Example() {
	err := fmt.Errorf("step one: %w", &move.Request{Tag: "gpu", Next: 42})
	r := move.Of(err)
	next, _ := move.Next[int](r, 7)
	fmt.Println(r.Tag, next)
	_, bad := move.Next[string](r, 7)
	fmt.Println(bad)

	path := move.Extend(nil, 3, "w1", "")
	path = move.Extend(path, 3, "w2", "gpu", "gpu", "gpu")
	err = move.Error(7, path, 2)
	fmt.Println(errors.Is(err, move.ErrMoves), len(path))
	fmt.Println(err)
	// Output:
	// gpu 42
	// remote: item 7 moves to tag "gpu" with a next input of type int, but the stage's items are of type string
	// true 3
	// remote: item 7 moved more than 2 times, along "" on w1 → "gpu" on w2 → "gpu" on w2: remote: the item moved too many times
}
