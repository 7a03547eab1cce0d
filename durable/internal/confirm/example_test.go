package confirm_test

import (
	"errors"
	"fmt"

	"github.com/evolvekit/evolve/durable/internal/confirm"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// An answer is read without decoding unless it is an error.
func ExampleRead() {
	for _, data := range []string{
		`{"stream":"orders","seq":7}`,
		`{"stream":"orders","seq":7,"duplicate":true}`,
		`{"error":{"code":400,"err_code":10071,"description":"wrong last sequence: 3"},"stream":"orders","seq":0}`,
	} {
		r := confirm.Read(&nats.Msg{Data: []byte(data)})
		var api *jetstream.APIError
		fmt.Println(r.Done, r.Duplicate, errors.As(r.Err, &api) && api.ErrorCode == 10071)
	}
	// Output:
	// true false false
	// true true false
	// true false true
}
