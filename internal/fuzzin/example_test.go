package fuzzin_test

import (
	"fmt"

	"github.com/evolvekit/evolve/internal/fuzzin"
)

// A fuzz input read as a kind and a clock step, twice; past its end it
// reads zeros.
func Example() {
	in := fuzzin.New([]byte{3, 0x85, 1})
	for range 2 {
		kind, step := in.Byte(), fuzzin.Delay(in.Byte())
		fmt.Println(kind, step, in.More())
	}
	// Output:
	// 3 5ms true
	// 1 0s false
}
