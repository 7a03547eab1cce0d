package jsoncodec_test

import (
	"fmt"

	"github.com/evolvekit/evolve/internal/jsoncodec"
)

func Example() {
	var c jsoncodec.Codec
	n := 42
	b, _ := c.Append([]byte("n="), &n)
	var back int
	err := c.Decode(b[len("n="):], &back)
	fmt.Println(string(b), back, err)
	// Output: n=42 42 <nil>
}
