package remote_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/evolvekit/evolve/remote"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The checks in this file run before anything listens: none binds a port.

func TestOffTheLoopbackNeedsTLSOrAllowInsecure(t *testing.T) {
	_, err := remote.Listen("192.0.2.1:7070")
	require.ErrorIs(t, err, remote.ErrConfig)
	assert.ErrorContains(t, err, "192.0.2.1:7070 is off the loopback")
	assert.ErrorContains(t, err, "AllowInsecure")

	nop := func(context.Context, int) (int, error) { return 0, nil }
	for _, cfg := range []remote.WorkerConfig{
		{Master: "192.0.2.1:7070"},
		{Master: "127.0.0.1:7070", Listen: "192.0.2.2:0"},
		{Master: "master.example:7070"},
	} {
		err := remote.Work(context.Background(), cfg, nop)
		require.ErrorIs(t, err, remote.ErrConfig, "%+v", cfg)
		assert.ErrorContains(t, err, "off the loopback")
	}
}

func TestTLSAndAllowInsecureExcludeEachOther(t *testing.T) {
	ca := newAuthority(t, "ca")
	_, err := remote.Listen("127.0.0.1:0", remote.WithTLS(ca.node(t, ca, "master", nil)), remote.AllowInsecure())
	require.ErrorIs(t, err, remote.ErrConfig)
	assert.ErrorContains(t, err, "exclude each other")
}

func TestTLSSettingsAreChecked(t *testing.T) {
	ca := newAuthority(t, "ca")
	good := ca.node(t, ca, "node", nil)
	dir := t.TempDir()
	write := func(name, text string) string {
		path := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(path, []byte(text), 0o600))
		return path
	}
	other := ca.node(t, ca, "other", nil)
	expired := ca.node(t, ca, "expired", func(c *x509.Certificate) { c.NotAfter = time.Now().Add(-time.Minute) })
	serverOnly := ca.node(t, ca, "server", func(c *x509.Certificate) { c.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth} })
	pair, err := tls.LoadX509KeyPair(good.CertFile, good.KeyFile)
	require.NoError(t, err)
	pool := x509.NewCertPool()
	pool.AddCert(ca.cert)
	mutual := tls.Config{Certificates: []tls.Certificate{pair}, RootCAs: pool, ClientCAs: pool, ClientAuth: tls.RequireAndVerifyClientCert}
	with := func(edit func(*tls.Config)) *tls.Config {
		c := mutual.Clone()
		edit(c)
		return c
	}
	for _, tc := range []struct {
		tls  remote.TLS
		want string
	}{
		{remote.TLS{CertFile: good.CertFile, KeyFile: good.KeyFile}, "CAFile is empty"},
		{remote.TLS{CAFile: good.CAFile, CertFile: good.CertFile}, "KeyFile is empty"},
		{remote.TLS{CAFile: good.CAFile, KeyFile: good.KeyFile}, "CertFile is empty"},
		{remote.TLS{ServerName: "evolve.test"}, "CAFile is empty"},
		{remote.TLS{CAFile: filepath.Join(dir, "missing.pem"), CertFile: good.CertFile, KeyFile: good.KeyFile}, "missing.pem: no such file"},
		{remote.TLS{CAFile: write("junk.pem", "not a certificate"), CertFile: good.CertFile, KeyFile: good.KeyFile}, "holds no PEM certificate"},
		{remote.TLS{CAFile: good.CAFile, CertFile: filepath.Join(dir, "none.pem"), KeyFile: good.KeyFile}, "none.pem: no such file"},
		{remote.TLS{CAFile: good.CAFile, CertFile: good.CertFile, KeyFile: write("key.pem", "not a key")}, "failed to find any PEM data in key input"},
		{remote.TLS{CAFile: good.CAFile, CertFile: good.CertFile, KeyFile: other.KeyFile}, "private key does not match public key"},
		{expired, "expired at"},
		{serverOnly, "both server and client authentication"},
		{remote.TLS{CAFile: good.CAFile, Config: &mutual}, "either Config or the files"},
		{remote.TLS{Config: with(func(c *tls.Config) { c.ClientAuth = tls.VerifyClientCertIfGiven })}, "RequireAndVerifyClientCert"},
		{remote.TLS{Config: with(func(c *tls.Config) { c.ClientCAs = nil })}, "ClientCAs and RootCAs"},
		{remote.TLS{Config: with(func(c *tls.Config) { c.RootCAs = nil })}, "ClientCAs and RootCAs"},
		{remote.TLS{Config: with(func(c *tls.Config) { c.Certificates = nil })}, "holds no certificate"},
	} {
		_, err := remote.Listen("127.0.0.1:0", remote.WithTLS(tc.tls))
		require.ErrorIs(t, err, remote.ErrConfig, "%+v", tc.tls)
		assert.ErrorContains(t, err, "remote: TLS")
		assert.ErrorContains(t, err, tc.want)
	}
	// A worker's settings are checked alike, before it dials.
	err = remote.Work(context.Background(), remote.WorkerConfig{Master: "127.0.0.1:1", TLS: expired},
		func(context.Context, int) (int, error) { return 0, nil })
	require.ErrorIs(t, err, remote.ErrConfig)
	assert.ErrorContains(t, err, "expired at")
}
