// Package natserr says in words what the NATS servers or client meant by
// an error, for the errors a durable queue returns: why a connection
// failed, what is wrong with a credentials file, a stream refused for want
// of servers to keep its replicas; and it keeps passwords out of them.
package natserr

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nkeys"
)

// Unusable says what is wrong with the credentials file, if err is one
// that could not be read or holds no key to sign with, and "" otherwise:
// the client reads the file as it connects, so its errors come back from
// the connection.
func Unusable(err error) string {
	var path *fs.PathError
	switch {
	case errors.As(err, &path):
		return "cannot be read: " + path.Err.Error()
	case errors.Is(err, nkeys.ErrNoSeedFound):
		return "holds no user seed: it is not a NATS credentials file"
	}
	return ""
}

// Why says in words why a connection failed.
func Why(err error) string {
	switch {
	case errors.Is(err, nats.ErrAuthorization), strings.Contains(strings.ToLower(err.Error()), "authorization"):
		return "the server refused the credentials: " + err.Error()
	case errors.Is(err, nats.ErrNoServers):
		return "no server answered: " + err.Error()
	}
	return err.Error()
}

// Redact removes a password from a URL list, for errors and logs.
func Redact(urls string) string {
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

// The JetStream errors of a stream with more replicas than the servers
// can keep.
const (
	errCodeReplicasNotSupported = 10074 // the server is not clustered
	errCodeNoPeers              = 10005 // the cluster has too few servers
)

// TooFewServers says, if err is the servers at url refusing a stream for
// want of servers to keep its replicas, why, and otherwise returns "".
func TooFewServers(err error, url string, replicas int) string {
	var api *jetstream.APIError
	if !errors.As(err, &api) {
		return ""
	}
	switch api.ErrorCode {
	case errCodeReplicasNotSupported:
		return fmt.Sprintf("the server at %s is not part of a cluster, and keeps one copy: give the URL of a JetStream cluster, or Replicas 1", url)
	case errCodeNoPeers:
		return fmt.Sprintf("the cluster at %s has fewer than %d servers with JetStream to keep the copies", url, replicas)
	}
	return ""
}
