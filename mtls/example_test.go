package mtls_test

import (
	"log"

	"github.com/evolvekit/evolve/durable"
	"github.com/evolvekit/evolve/mtls"
)

// One Load serves every role a process plays: here an embedded queue that
// lets the other processes of a fleet in, over mutual TLS only.
func ExampleLoad() {
	cfg, err := mtls.Load("ca.pem", "queue.pem", "queue-key.pem")
	if err != nil {
		log.Fatal(err) // mtls: CA file: open ca.pem: no such file or directory
	}
	q, err := durable.Open[string](durable.Embedded{Dir: "state", Listen: "10.0.0.5:4222", TLS: cfg}, durable.Config{})
	if err != nil {
		log.Fatal(err)
	}
	defer q.Close()
}
