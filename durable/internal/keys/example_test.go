package keys_test

import (
	"fmt"
	"time"

	"github.com/evolvekit/evolve/durable/internal/keys"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// An item is published with its key as its ID, to be stored only while
// its key has no marker; the marker lives, in whole seconds, as long as
// the key's window.
func Example() {
	marker := keys.Subject("orders.keys.", "order 17")
	h := keys.Guard("order 17", marker)
	fmt.Println("marker:", marker)
	fmt.Println("ID:", h.Get(nats.MsgIdHdr))
	fmt.Println("expects", h.Get(jetstream.ExpectedLastSubjSeqHeader), "on the marker:", h.Get(jetstream.ExpectedLastSubjSeqSubjHeader) == marker)

	ttl, ok := keys.TTL(1500 * time.Millisecond)
	fmt.Println("marker TTL:", ttl.Get(jetstream.MsgTTLHeader), ok)

	// The servers refuse the item again once its key has a marker.
	err := fmt.Errorf("adding: %w", &jetstream.APIError{ErrorCode: jetstream.JSErrCodeStreamWrongLastSequence})
	fmt.Println("refused:", keys.Refused(err))
	// Output:
	// marker: orders.keys.0bcc920e3938c1b86e3483fc9888c6d6
	// ID: order 17
	// expects 0 on the marker: true
	// marker TTL: 2s true
	// refused: true
}
