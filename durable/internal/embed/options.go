package embed

import (
	"crypto/tls"
	"net"
	"strconv"

	"github.com/evolvekit/evolve/internal/errs"
	"github.com/evolvekit/evolve/internal/loopback"
	"github.com/nats-io/nats-server/v2/server"
)

// Config is what the server of an embedded queue runs with: package
// durable's Embedded, which says what each setting does, but AcceptLoss.
type Config struct {
	Dir, Listen   string
	TLS           *tls.Config
	AllowInsecure bool
	Sync          bool
}

// Options checks cfg and returns the options of its server: with no
// Listen, a server on no port. A Listen that is not a host and a port
// from 0 (any free one) to 65535, or off the loopback with neither TLS
// nor AllowInsecure, is an error of kind invalid, as errs.Invalid makes
// it for package durable.
func Options(cfg Config, invalid error) (*server.Options, error) {
	opts := &server.Options{ServerName: "evolve-durable", JetStream: true, StoreDir: cfg.Dir, SyncAlways: cfg.Sync,
		NoLog: true, NoSigs: true, DontListen: cfg.Listen == ""}
	if cfg.Listen == "" {
		return opts, nil
	}
	host, port, err := net.SplitHostPort(cfg.Listen)
	if err != nil {
		return nil, errs.Invalid(invalid, "durable", "listen %q: %v", cfg.Listen, err)
	}
	p, err := strconv.Atoi(port)
	if err != nil || p < 0 || p > 65535 {
		return nil, errs.Invalid(invalid, "durable", "listen %q: the port must be a number from 0 to 65535", cfg.Listen)
	}
	if err := loopback.Require(invalid, "durable", cfg.Listen, host, cfg.TLS != nil, cfg.AllowInsecure); err != nil {
		return nil, err
	}
	if p == 0 {
		p = server.RANDOM_PORT
	}
	opts.Host, opts.Port = host, p
	if cfg.TLS != nil {
		opts.TLSConfig, opts.TLS, opts.TLSVerify = cfg.TLS.Clone(), true, cfg.TLS.ClientCAs != nil
	}
	return opts, nil
}
