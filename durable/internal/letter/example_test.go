package letter_test

import (
	"errors"
	"fmt"

	"github.com/evolvekit/evolve/durable/internal/letter"
	"github.com/nats-io/nats.go"
)

func ExampleNew() {
	m := letter.New("orders.dead", []byte(`"o-1"`), nats.Header{}, "Evolve-Payload", "o-1", errors.New("card declined"), 5)
	fmt.Println(m.Header.Get(letter.Key), m.Header.Get(letter.Error), m.Header.Get(letter.Attempts))
	// Output: o-1 card declined 5
}
