// Package certs makes the certificate authorities and certificates that
// tests of mutual TLS need, valid for an hour around now.
package certs

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"
)

// Authority is a certificate authority a test made.
type Authority struct {
	Cert *x509.Certificate
	Key  *ecdsa.PrivateKey
	PEM  []byte
}

// serial numbers the certificates issued, so that no two share one.
var serial atomic.Int64

// NewAuthority makes an authority named name.
func NewAuthority(t testing.TB, name string) *Authority {
	t.Helper()
	key := newKey(t)
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(serial.Add(1)),
		Subject:               pkix.Name{CommonName: name},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		KeyUsage:              x509.KeyUsageCertSign,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	must(t, err)
	cert, err := x509.ParseCertificate(der)
	must(t, err)
	return &Authority{Cert: cert, Key: key, PEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})}
}

// Issue returns a certificate for name and its key, in PEM: valid for
// 127.0.0.1, for server and client authentication, unless edit changes
// its template.
func (a *Authority) Issue(t testing.TB, name string, edit func(*x509.Certificate)) (certPEM, keyPEM []byte) {
	t.Helper()
	key := newKey(t)
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(serial.Add(1)),
		Subject:      pkix.Name{CommonName: name},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1)},
	}
	if edit != nil {
		edit(tmpl)
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, a.Cert, &key.PublicKey, a.Key)
	must(t, err)
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	must(t, err)
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER})
}

// Files are the three PEM files of a node: the authorities it trusts, its
// certificate and its key.
type Files struct{ CA, Cert, Key string }

// Files writes, in a directory of the test's, the files of a node whose
// certificate a issues for name (edit as in Issue), and which trusts the
// authority trust.
func (a *Authority) Files(t testing.TB, trust *Authority, name string, edit func(*x509.Certificate)) Files {
	t.Helper()
	certPEM, keyPEM := a.Issue(t, name, edit)
	dir := t.TempDir()
	f := Files{CA: filepath.Join(dir, "ca.pem"), Cert: filepath.Join(dir, name+".pem"), Key: filepath.Join(dir, name+"-key.pem")}
	must(t, os.WriteFile(f.CA, trust.PEM, 0o600))
	must(t, os.WriteFile(f.Cert, certPEM, 0o600))
	must(t, os.WriteFile(f.Key, keyPEM, 0o600))
	return f
}

// Pair returns the certificate Issue makes, with its key, as crypto/tls
// holds it.
func (a *Authority) Pair(t testing.TB, name string, edit func(*x509.Certificate)) tls.Certificate {
	t.Helper()
	certPEM, keyPEM := a.Issue(t, name, edit)
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	must(t, err)
	return pair
}

// Pool returns a pool that trusts a alone.
func (a *Authority) Pool() *x509.CertPool {
	pool := x509.NewCertPool()
	pool.AddCert(a.Cert)
	return pool
}

func newKey(t testing.TB) *ecdsa.PrivateKey {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	must(t, err)
	return key
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
