package remote_test

import (
	"context"
	"log"

	"github.com/evolvekit/evolve/mtls"
	"github.com/evolvekit/evolve/remote"
)

// A master and its workers on several machines authenticate each other
// with certificates that one authority signed. The master's certificate
// names the IP it listens at, 10.0.0.5; each worker's names the IP of its
// own Listen address, where the master dials it. Both allow server and
// client authentication: every node is both. With openssl, the authority,
// then a certificate for each node:
//
//	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 365 \
//	  -subj /CN=evolve-ca -keyout ca-key.pem -out ca.pem
//	openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj /CN=master \
//	  -keyout master-key.pem -out master.csr
//	printf 'subjectAltName=IP:10.0.0.5\nextendedKeyUsage=serverAuth,clientAuth\n' > master.ext
//	openssl x509 -req -in master.csr -CA ca.pem -CAkey ca-key.pem -days 365 \
//	  -extfile master.ext -out master.pem
//
// and alike for each worker, with its own IP. Go's crypto/x509 does the
// same (x509.CreateCertificate, with IPAddresses and ExtKeyUsage set).
// Where the addresses are not known in advance, give every certificate one
// DNS name instead and set it as the loaded config's ServerName.
func ExampleListen_tls() {
	creds, err := mtls.Load("ca.pem", "master.pem", "master-key.pem")
	if err != nil {
		log.Fatal(err)
	}
	node, err := remote.Listen(remote.NodeConfig{Addr: "10.0.0.5:7070", TLS: creds})
	if err != nil {
		log.Fatal(err)
	}
	defer node.Close()
	// ... remote.New or remote.Stage with Config{Node: node, Name: "double"}.

	// On each worker's machine, here 10.0.0.6:
	creds, err = mtls.Load("ca.pem", "worker.pem", "worker-key.pem")
	if err != nil {
		log.Fatal(err)
	}
	err = remote.Work(context.Background(), remote.WorkerConfig{
		Master: "10.0.0.5:7070",
		Stage:  "double",
		Listen: "10.0.0.6:0",
		TLS:    creds,
	}, func(ctx context.Context, v int) (int, error) { return 2 * v, nil })
	if err != nil {
		log.Fatal(err)
	}
}
