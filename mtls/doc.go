// Package mtls loads the mutual TLS that the processes of a fleet speak to
// each other with (from the Load example):
//
//	creds, err := mtls.Load("ca.pem", "master.pem", "master-key.pem")
//	node, err := remote.Listen(remote.NodeConfig{Addr: "10.0.0.5:7070", TLS: creds})
//	q, err := durable.Open[string](durable.Embedded{Dir: "state", Listen: "10.0.0.5:4222", TLS: creds}, durable.Config{})
//
// Every connection is TLS 1.3 with a certificate on both sides: a peer
// without one that the authorities of the CA file signed is refused by the
// handshake.
//
// The processes are a remote stage's master and its workers, and a durable
// queue and the servers it reaches or lets in. Each takes a *tls.Config in
// its settings (remote.NodeConfig, remote.WorkerConfig, durable.Embedded
// and durable.Server); [Load] makes one from the usual three PEM files,
// good in both roles a process plays, server and client.
package mtls
