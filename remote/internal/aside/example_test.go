package aside_test

import (
	"errors"
	"fmt"

	"github.com/evolvekit/evolve/remote/internal/aside"
	"github.com/evolvekit/evolve/remote/internal/move"
)

func Example() {
	var s aside.Store
	fmt.Println("item 1 keeps nothing:", s.Get(1) == nil, s.Get(1).Steps() == nil, s.Get(1).Stale(1))

	r := s.Keep(2) // item 2 moved under its attempt 3
	r.Path = move.Extend(nil, 5, "w1", "gpu")
	r.Moved = 3
	c := s.Clone()
	s.Keep(2).Err = errors.New("boom")
	fmt.Println("item 2:", s.Get(2).Steps(), s.Get(2).Stale(3), s.Get(2).Stale(4), s.Get(2).Err)
	fmt.Println("its clone:", c.Get(2).Err)

	s.Forget(2) // emitted
	fmt.Println("forgotten:", s.Get(2) == nil, len(s.Seqs()))
	// Output:
	// item 1 keeps nothing: true true false
	// item 2: [{gpu w1}] true false boom
	// its clone: <nil>
	// forgotten: true 0
}
