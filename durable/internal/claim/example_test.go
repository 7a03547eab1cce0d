package claim_test

import (
	"crypto/sha256"
	"fmt"

	"github.com/evolvekit/evolve/durable/internal/claim"
	"github.com/nats-io/nats.go"
)

// A message whose item is stored apart names the object in a header,
// with the size and SHA-256 of the item's bytes; the reference is checked
// before it is believed.
func Example() {
	inline, _ := claim.Inline(1<<20, 0)
	fmt.Println("stored apart above", inline, "bytes")

	data := []byte("five megabytes, say")
	r := claim.Ref{Bucket: "orders_payloads", Object: claim.Name("order 17"), Size: len(data), Sum: sha256.Sum256(data)}
	h := nats.Header{}
	h.Set(claim.Header, r.String())

	got, ok, err := claim.Of(h, "orders_payloads", "order 17")
	fmt.Println(ok, err, got == r)
	_, _, err = claim.Of(h, "orders_payloads", "order 18")
	fmt.Println(err != nil)
	// Output:
	// stored apart above 1040384 bytes
	// true <nil> true
	// true
}
