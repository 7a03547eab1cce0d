package durable

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nkeys"
)

// connect reaches the NATS servers at cfg.URL with the credentials cfg
// gives.
func connect(cfg Config) (*nats.Conn, error) {
	opts := []nats.Option{
		nats.Name("evolve-durable"),
		nats.Timeout(cfg.ConnectTimeout),
		nats.MaxReconnects(-1),
	}
	if cfg.Creds != "" {
		opts = append(opts, nats.UserCredentials(cfg.Creds))
	}
	if cfg.User != "" || cfg.Password != "" {
		opts = append(opts, nats.UserInfo(cfg.User, cfg.Password))
	}
	if cfg.TLS != nil {
		opts = append(opts, nats.Secure(cfg.TLS.Clone()))
	}
	nc, err := nats.Connect(cfg.URL, opts...)
	if err != nil && cfg.Creds != "" {
		if bad := unusable(err); bad != "" {
			return nil, fmt.Errorf("%w: creds file %s %s", ErrConfig, cfg.Creds, bad)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %s", ErrUnreachable, redact(cfg.URL), why(err))
	}
	return nc, nil
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
