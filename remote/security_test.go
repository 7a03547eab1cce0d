package remote_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"testing"
	"time"

	"github.com/evolvekit/evolve/remote"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The checks in this file run before anything listens: none binds a port.

func TestOffTheLoopbackNeedsTLSOrAllowInsecure(t *testing.T) {
	_, err := remote.Listen(remote.NodeConfig{Addr: "192.0.2.1:7070"})
	require.ErrorIs(t, err, remote.ErrConfig)
	assert.ErrorContains(t, err, "192.0.2.1:7070 is off the loopback")
	assert.ErrorContains(t, err, "AllowInsecure")

	nop := func(context.Context, int) (int, error) { return 0, nil }
	for _, cfg := range []remote.WorkerConfig{
		{Master: "192.0.2.1:7070"},
		{Master: "127.0.0.1:7070", Listen: "192.0.2.2:0"},
	} {
		err := remote.Work(context.Background(), cfg, nop)
		require.ErrorIs(t, err, remote.ErrConfig, "%+v", cfg)
		assert.ErrorContains(t, err, "off the loopback")
	}
}

// A host that does not resolve (.invalid never does, and no network is
// needed to find out) is refused as such, naming it, before the loopback
// rule could call it off the loopback.
func TestAHostThatDoesNotResolveIsRefusedAsSuch(t *testing.T) {
	nop := func(context.Context, int) (int, error) { return 0, nil }
	for _, cfg := range []remote.WorkerConfig{
		{Master: "nosuchhost.invalid:7070"},
		{Master: "127.0.0.1:7070", Listen: "nosuchhost.invalid:0"},
	} {
		err := remote.Work(context.Background(), cfg, nop)
		require.ErrorIs(t, err, remote.ErrConfig, "%+v", cfg)
		assert.Regexp(t, `^remote: host "nosuchhost\.invalid" of nosuchhost\.invalid:\d+ does not resolve: `, err.Error())
		assert.NotContains(t, err.Error(), "off the loopback")
	}
	_, err := remote.Listen(remote.NodeConfig{Addr: "nosuchhost.invalid:7070"})
	require.ErrorIs(t, err, remote.ErrConfig)
	assert.ErrorContains(t, err, `host "nosuchhost.invalid" of nosuchhost.invalid:7070 does not resolve`)
}

func TestTLSAndAllowInsecureExcludeEachOther(t *testing.T) {
	ca := newAuthority(t, "ca")
	_, err := remote.Listen(remote.NodeConfig{TLS: ca.node(t, ca, "master", nil), AllowInsecure: true})
	require.ErrorIs(t, err, remote.ErrConfig)
	assert.ErrorContains(t, err, "exclude each other")
}

func TestTLSSettingsAreChecked(t *testing.T) {
	ca := newAuthority(t, "ca")
	good := ca.node(t, ca, "node", nil)
	expired := ca.node(t, ca, "expired", func(c *x509.Certificate) { c.NotAfter = time.Now().Add(-time.Minute) })
	serverOnly := ca.node(t, ca, "server", func(c *x509.Certificate) { c.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth} })
	with := func(edit func(*tls.Config)) *tls.Config {
		c := good.Clone()
		edit(c)
		return c
	}
	for _, tc := range []struct {
		tls  *tls.Config
		want string
	}{
		{expired, "expired at"},
		{serverOnly, "both server and client authentication"},
		{with(func(c *tls.Config) { c.ClientAuth = tls.VerifyClientCertIfGiven }), "RequireAndVerifyClientCert"},
		{with(func(c *tls.Config) { c.ClientCAs = nil }), "ClientCAs and RootCAs"},
		{with(func(c *tls.Config) { c.RootCAs = nil }), "ClientCAs and RootCAs"},
		{with(func(c *tls.Config) { c.Certificates = nil }), "holds no certificate"},
	} {
		_, err := remote.Listen(remote.NodeConfig{TLS: tc.tls})
		require.ErrorIs(t, err, remote.ErrConfig, tc.want)
		assert.ErrorContains(t, err, "remote: TLS")
		assert.ErrorContains(t, err, tc.want)
	}
	// A worker's settings are checked alike, before it dials.
	err := remote.Work(context.Background(), remote.WorkerConfig{Master: "127.0.0.1:1", TLS: expired},
		func(context.Context, int) (int, error) { return 0, nil })
	require.ErrorIs(t, err, remote.ErrConfig)
	assert.ErrorContains(t, err, "expired at")
}
