package mtls_test

import (
	"context"
	"log"

	"github.com/evolvekit/evolve/durable"
	"github.com/evolvekit/evolve/mtls"
	"github.com/evolvekit/evolve/remote"
)

// One Load serves every role a process plays: the node a remote stage's
// master listens on, and an embedded queue that lets the other processes
// of a fleet in, over mutual TLS only.
func ExampleLoad() {
	creds, err := mtls.Load("ca.pem", "master.pem", "master-key.pem")
	if err != nil {
		log.Fatal(err) // mtls: unusable files: CA file: open ca.pem: no such file or directory
	}
	node, err := remote.Listen(remote.NodeConfig{Addr: "10.0.0.5:7070", TLS: creds})
	if err != nil {
		log.Fatal(err)
	}
	defer node.Close()
	q, err := durable.Open[string](durable.Embedded{Dir: "state", Listen: "10.0.0.5:4222", TLS: creds}, durable.Config{})
	if err != nil {
		log.Fatal(err)
	}
	defer q.Close()

	// A worker on another machine loads its own files.
	creds, err = mtls.Load("ca.pem", "worker.pem", "worker-key.pem")
	if err != nil {
		log.Fatal(err)
	}
	err = remote.Work(context.Background(), remote.WorkerConfig{Master: "10.0.0.5:7070", Listen: "10.0.0.6:0", TLS: creds},
		func(ctx context.Context, s string) (int, error) { return len(s), nil })
	if err != nil {
		log.Fatal(err)
	}
}
