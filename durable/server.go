package durable

import (
	"crypto/tls"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nkeys"
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
		if bad := unusable(err); bad != "" {
			return nil, invalid("creds file %s %s", s.Creds, bad)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %s", ErrUnreachable, redact(s.URL), why(err))
	}
	return &site{nc: nc, url: s.URL, replicas: max(s.Replicas, 1)}, nil
}

// unusable says what is wrong with the credentials file, if err is one
// that could not be read or holds no key to sign with, and "" otherwise:
// the client reads the file as it connects, so its errors come back from
// the connection.
func unusable(err error) string {
	var path *fs.PathError
	switch {
	case errors.As(err, &path):
		return "cannot be read: " + path.Err.Error()
	case errors.Is(err, nkeys.ErrNoSeedFound):
		return "holds no user seed: it is not a NATS credentials file"
	}
	return ""
}

// why says in words why a connection failed.
func why(err error) string {
	switch {
	case errors.Is(err, nats.ErrAuthorization), strings.Contains(strings.ToLower(err.Error()), "authorization"):
		return "the server refused the credentials: " + err.Error()
	case errors.Is(err, nats.ErrNoServers):
		return "no server answered: " + err.Error()
	}
	return err.Error()
}

// redact removes a password from a URL list, for errors and logs.
func redact(urls string) string {
	parts := strings.Split(urls, ",")
	for i, u := range parts {
		if at := strings.LastIndex(u, "@"); at >= 0 {
			if scheme := strings.Index(u, "://"); scheme >= 0 && scheme < at {
				parts[i] = u[:scheme+3] + "***@" + u[at+1:]
			}
		}
	}
	return strings.Join(parts, ",")
}
