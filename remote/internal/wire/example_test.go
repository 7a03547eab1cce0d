package wire_test

import (
	"fmt"

	"github.com/evolvekit/evolve/remote/internal/wire"
	"google.golang.org/protobuf/proto"
)

// Two items of a Tasks message share one field of bytes, each taking the
// size given for it.
func Example() {
	msg := &wire.Tasks{Items: []uint64{7, 8}, Attempts: []uint32{1, 2}, Sizes: []uint32{2, 3}, Values: []byte("42100")}
	data, err := proto.Marshal(msg)
	if err != nil {
		panic(err)
	}
	var back wire.Tasks
	if err := proto.Unmarshal(data, &back); err != nil {
		panic(err)
	}
	off := uint32(0)
	for i, item := range back.Items {
		fmt.Printf("item %d, attempt %d: %s\n", item, back.Attempts[i], back.Values[off:off+back.Sizes[i]])
		off += back.Sizes[i]
	}
	// Output:
	// item 7, attempt 1: 42
	// item 8, attempt 2: 100
}
