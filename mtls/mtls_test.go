package mtls_test

import (
	"crypto/tls"
	"crypto/x509"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/evolvekit/evolve/internal/testing/certs"
	"github.com/evolvekit/evolve/mtls"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLoadMakesAMutualConfigForBothRoles(t *testing.T) {
	ca := certs.NewAuthority(t, "ca")
	f := ca.Files(t, ca, "node", nil)
	cfg, err := mtls.Load(f.CA, f.Cert, f.Key)
	require.NoError(t, err)
	assert.Equal(t, tls.RequireAndVerifyClientCert, cfg.ClientAuth)
	assert.NotNil(t, cfg.RootCAs)
	assert.NotNil(t, cfg.ClientCAs)
	assert.Len(t, cfg.Certificates, 1)
	assert.Equal(t, uint16(tls.VersionTLS13), cfg.MinVersion)

	// The node's own certificate verifies against the pools it trusts.
	leaf := cfg.Certificates[0].Leaf
	require.NotNil(t, leaf)
	_, err = leaf.Verify(x509Opts(cfg))
	assert.NoError(t, err)
}

func TestLoadSaysWhichFileIsUnusable(t *testing.T) {
	ca := certs.NewAuthority(t, "ca")
	good := ca.Files(t, ca, "node", nil)
	other := ca.Files(t, ca, "other", nil)
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(text), 0o600))
		return p
	}
	for _, tc := range []struct {
		ca, cert, key string
		want          string
	}{
		{"", good.Cert, good.Key, "the CA file is not named"},
		{good.CA, "", good.Key, "the certificate file is not named"},
		{good.CA, good.Cert, "", "the key file is not named"},
		{filepath.Join(dir, "missing.pem"), good.Cert, good.Key, "missing.pem: no such file"},
		{write("junk.pem", "not a certificate"), good.Cert, good.Key, "holds no PEM certificate"},
		{good.CA, filepath.Join(dir, "none.pem"), good.Key, "none.pem: no such file"},
		{good.CA, good.Cert, write("key.pem", "not a key"), "failed to find any PEM data in key input"},
		{good.CA, good.Cert, other.Key, "private key does not match public key"},
	} {
		_, err := mtls.Load(tc.ca, tc.cert, tc.key)
		assert.ErrorIs(t, err, mtls.ErrFiles)
		assert.ErrorContains(t, err, tc.want)
	}
	_, err := mtls.Load(filepath.Join(dir, "missing.pem"), good.Cert, good.Key)
	assert.ErrorIs(t, err, fs.ErrNotExist)
}

// x509Opts verifies a certificate for client authentication against the
// authorities cfg trusts as a server.
func x509Opts(cfg *tls.Config) x509.VerifyOptions {
	return x509.VerifyOptions{Roots: cfg.ClientCAs, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}
}
