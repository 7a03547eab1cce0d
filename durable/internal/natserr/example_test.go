package natserr_test

import (
	"fmt"
	"io/fs"

	"github.com/evolvekit/evolve/durable/internal/natserr"
	"github.com/nats-io/nats.go"
)

// The errors of a connection said in words, with no password in the
// servers' URLs: a credentials file that cannot be read, and servers
// that did not answer.
func Example() {
	urls := "nats://app:s3cret@10.0.0.1:4222,nats://10.0.0.2:4222"
	fmt.Println("servers:", natserr.Redact(urls))

	err := &fs.PathError{Op: "open", Path: "/etc/app.creds", Err: fs.ErrPermission}
	fmt.Println("credentials file:", natserr.Unusable(err))
	fmt.Printf("credentials file: %q\n", natserr.Unusable(nats.ErrNoServers))

	fmt.Println("connection:", natserr.Why(nats.ErrNoServers))
	// Output:
	// servers: nats://***@10.0.0.1:4222,nats://10.0.0.2:4222
	// credentials file: cannot be read: permission denied
	// credentials file: ""
	// connection: no server answered: nats: no servers available for connection
}
