package fairfetch_test

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/evolvekit/evolve/durable/internal/fairfetch"
)

// A Book told how many items each key has in the stream asks each key
// for its share of the budget, and hands the items fetched out in the
// keys' turns by weight: "gold", of weight 2, starts two items for each
// of "free"'s, and a key's line is fetched from again while one item is
// left, so that it keeps its turns.
func ExampleBook() {
	b, err := fairfetch.NewBook[string](time.Millisecond, map[string]int{"gold": 2}, 16, 8)
	if err != nil {
		panic(err)
	}
	next := map[string]int{} // the next item of each key in the stream
	fetch := func(k string, n int) {
		vs := make([]string, n)
		for i := range vs {
			vs[i] = fmt.Sprintf("%s-%d", k, next[k])
			next[k]++
		}
		b.Fetched(k, vs, n) // the fetch brings all it asked
		fmt.Printf("fetched %d of %s\n", n, k)
	}

	b.Count(map[string]int{"gold": 10, "free": 10}) // a count of the stream's subjects
	wants := b.Wants(nil)
	slices.SortFunc(wants, func(x, y fairfetch.Want) int { return strings.Compare(x.Key, y.Key) })
	for _, w := range wants {
		fetch(w.Key, w.N)
	}
	for range 9 {
		k, v, charge, _ := b.Pop()
		fmt.Println("start", v)
		b.Done(k, charge, time.Millisecond) // its work took a millisecond
		if n := b.Want(k); n > 0 {
			fetch(k, n)
		}
	}
	// Output:
	// fetched 4 of free
	// fetched 4 of gold
	// start free-0
	// start gold-0
	// start gold-1
	// start free-1
	// start gold-2
	// fetched 4 of gold
	// start gold-3
	// start free-2
	// fetched 4 of free
	// start gold-4
	// start gold-5
}
