package embed_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/evolvekit/evolve/durable/internal/embed"
	"github.com/evolvekit/evolve/durable/internal/natslog"
	"github.com/nats-io/nats-server/v2/server"
)

// A server with JetStream, its store in a directory, on no port: only this
// process reaches it.
func ExampleStart() {
	dir, err := os.MkdirTemp("", "embed")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	store := filepath.Join(dir, "store")
	fmt.Println(embed.Writable(store))
	srv, nc, err := embed.Start(&server.Options{JetStream: true, StoreDir: store, DontListen: true, NoSigs: true}, &natslog.Log{}, 5e9)
	if err != nil {
		panic(err)
	}
	fmt.Println(srv.JetStreamEnabled(), nc.IsConnected())
	nc.Close()
	srv.Shutdown()
	srv.WaitForShutdown()
	// Output:
	// <nil>
	// true true
}
