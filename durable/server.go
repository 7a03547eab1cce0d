package durable

import (
	"crypto/tls"
	"fmt"
	"time"

	"github.com/evolvekit/evolve/durable/internal/natserr"
	"github.com/nats-io/nats.go"
)

// Server is a [Store] kept by the NATS servers with JetStream at a URL: a
// cluster, with replicas, when one machine is not enough. Its zero value
// has no URL, and [Open] refuses it with an ErrConfig.
type Server struct {
	// URL is a NATS server, or several separated by commas.
	URL string
	// Replicas is how many servers of the cluster keep a copy of the
	// queue, its dead letters and its consumer (at most 5, and no more
	// than the cluster has servers with JetStream; a server that is not
	// part of a cluster keeps one). Default 1.
	Replicas int
	// Creds is a NATS credentials file: a user's JWT and seed, as nsc
	// writes them. The file is read each time the client connects,
	// reconnections included.
	Creds string
	// User and Password authenticate with the servers.
	User, Password string
	// TLS is the TLS configuration to reach the servers: RootCAs, and
	// Certificates for mutual TLS (mtls.Load makes one from three PEM
	// files).
	TLS *tls.Config
}

// open checks s and connects to its servers, with the credentials s
// gives.
func (s Server) open(timeout time.Duration) (*site, error) {
	switch {
	case s.URL == "":
		return nil, invalid("a Server store needs a URL, where the NATS servers are")
	case s.Replicas < 0 || s.Replicas > 5:
		return nil, invalid("replicas must be 1 to 5, got %d", s.Replicas)
	}
	opts := []nats.Option{nats.Name("evolve-durable"), nats.Timeout(timeout), nats.MaxReconnects(-1)}
	if s.Creds != "" {
		opts = append(opts, nats.UserCredentials(s.Creds))
	}
	if s.User != "" || s.Password != "" {
		opts = append(opts, nats.UserInfo(s.User, s.Password))
	}
	if s.TLS != nil {
		opts = append(opts, nats.Secure(s.TLS.Clone()))
	}
	nc, err := nats.Connect(s.URL, opts...)
	if err != nil && s.Creds != "" {
		if bad := natserr.Unusable(err); bad != "" {
			return nil, invalid("creds file %s %s", s.Creds, bad)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %s", ErrUnreachable, natserr.Redact(s.URL), natserr.Why(err))
	}
	return &site{nc: nc, url: s.URL, replicas: max(s.Replicas, 1)}, nil
}
