package embed_test

import (
	"crypto/tls"
	"errors"
	"testing"

	"github.com/evolvekit/evolve/durable/internal/embed"
	"github.com/nats-io/nats-server/v2/server"
)

// TestOptionsCheckListen takes listen addresses good and bad: a bad one
// is an error of the kind given, a good one a server on that host and
// port (any free one for 0), and none a server on no port.
func TestOptionsCheckListen(t *testing.T) {
	invalid := errors.New("invalid")
	for _, c := range []struct {
		cfg  embed.Config
		port int
		bad  bool
	}{
		{cfg: embed.Config{}, port: 0},
		{cfg: embed.Config{Listen: "127.0.0.1:0"}, port: server.RANDOM_PORT},
		{cfg: embed.Config{Listen: "127.0.0.1:4333"}, port: 4333},
		{cfg: embed.Config{Listen: "10.0.0.1:4222", TLS: &tls.Config{}}, port: 4222},
		{cfg: embed.Config{Listen: "10.0.0.1:4222", AllowInsecure: true}, port: 4222},
		{cfg: embed.Config{Listen: "10.0.0.1:4222"}, bad: true},
		{cfg: embed.Config{Listen: "127.0.0.1"}, bad: true},
		{cfg: embed.Config{Listen: "127.0.0.1:70000"}, bad: true},
	} {
		opts, err := embed.Options(c.cfg, invalid)
		switch {
		case c.bad && !errors.Is(err, invalid):
			t.Errorf("Options(%q) = %v; want an error of kind invalid", c.cfg.Listen, err)
		case c.bad:
		case err != nil:
			t.Errorf("Options(%q) = %v", c.cfg.Listen, err)
		case opts.DontListen != (c.cfg.Listen == "") || opts.Port != c.port || opts.TLS != (c.cfg.TLS != nil):
			t.Errorf("Options(%q): port %d, listens %v, TLS %v; want port %d", c.cfg.Listen, opts.Port, !opts.DontListen, opts.TLS, c.port)
		}
	}
}
