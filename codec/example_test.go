package codec_test

import (
	"fmt"

	"github.com/evolvekit/evolve/codec"
)

// A codec appends a value's bytes to a buffer and decodes them back; the
// pointer spares the value a trip to the heap.
func Example() {
	type order struct {
		ID    int
		Items []string
	}
	in := order{ID: 7, Items: []string{"ink", "paper"}}
	data, err := codec.JSON.Append(nil, &in)
	if err != nil {
		panic(err)
	}
	var out order
	err = codec.JSON.Decode(data, &out)
	fmt.Println(string(data), out.ID, out.Items, err)
	// Output: {"ID":7,"Items":["ink","paper"]} 7 [ink paper] <nil>
}
