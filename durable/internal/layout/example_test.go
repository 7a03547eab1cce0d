package layout_test

import (
	"fmt"
	"time"

	"github.com/evolvekit/evolve/durable/internal/layout"
	"github.com/nats-io/nats.go/jetstream"
)

func Example() {
	s := layout.Stream("orders", "orders.items", jetstream.WorkQueuePolicy, 1, time.Hour)
	c := layout.Consumer("orders.items", 5*time.Second, 1000, 1)
	fmt.Println(s.Name, s.Subjects, s.Duplicates, c.Durable, c.AckWait, c.MaxAckPending)
	// Output: orders [orders.items] 1h0m0s chain 5s 1000
}
