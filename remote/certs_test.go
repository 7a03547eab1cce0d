package remote_test

import (
	"crypto/tls"
	"crypto/x509"
	"testing"

	"github.com/evolvekit/evolve/internal/testing/certs"
	"github.com/evolvekit/evolve/mtls"
	"github.com/stretchr/testify/require"
)

// authority is a certificate authority the test makes.
type authority struct{ *certs.Authority }

func newAuthority(t *testing.T, name string) *authority {
	return &authority{certs.NewAuthority(t, name)}
}

// node returns the TLS of a node whose certificate a signs (valid for
// 127.0.0.1, for server and client, unless edit changes it), and which
// trusts the authority trust, loaded from files as mtls.Load does.
func (a *authority) node(t *testing.T, trust *authority, name string, edit func(*x509.Certificate)) *tls.Config {
	t.Helper()
	f := a.Files(t, trust.Authority, name, edit)
	cfg, err := mtls.Load(f.CA, f.Cert, f.Key)
	require.NoError(t, err)
	return cfg
}
