package remote_test

import (
	"context"
	"log"

	"github.com/evolvekit/evolve/remote"
)

// A master and its workers on several machines authenticate each other
// with certificates that one authority signed. The master's certificate
// names the IP it listens at, 10.0.0.5; each worker's names the IP of its
// own Listen address, where the master dials it. Both allow server and
// client authentication.
func ExampleWithTLS() {
	node, err := remote.Listen("10.0.0.5:7070", remote.WithTLS(remote.TLS{
		CAFile:   "ca.pem",
		CertFile: "master.pem",
		KeyFile:  "master-key.pem",
	}))
	if err != nil {
		log.Fatal(err)
	}
	defer node.Close()
	// ... remote.New or remote.Stage with Config{Node: node, Name: "double"}.

	// On each worker's machine, here 10.0.0.6:
	err = remote.Work(context.Background(), remote.WorkerConfig{
		Master: "10.0.0.5:7070",
		Stage:  "double",
		Listen: "10.0.0.6:0",
		TLS: remote.TLS{
			CAFile:   "ca.pem",
			CertFile: "worker.pem",
			KeyFile:  "worker-key.pem",
		},
	}, func(ctx context.Context, v int) (int, error) { return 2 * v, nil })
	if err != nil {
		log.Fatal(err)
	}
}
