package durable_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"math/big"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/evolvekit/evolve/durable"
	"github.com/nats-io/nats-server/v2/server"
)

// testCA is a certificate authority made for one test.
type testCA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	pool *x509.CertPool
}

// newCA makes a certificate authority.
func newCA(t *testing.T) testCA {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return testCA{cert: cert, key: key, pool: pool}
}

// issue returns a certificate the CA signed for 127.0.0.1, for servers
// and clients.
func (ca testCA) issue(t *testing.T) tls.Certificate {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")},
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

// TestAQueueAtAURLOverMutualTLS runs a NATS server that requires client
// certificates of its CA: a queue with a certificate of that CA opens and
// takes items; one whose certificate another CA signed is refused with an
// ErrUnreachable, and so is one without TLS.
func TestAQueueAtAURLOverMutualTLS(t *testing.T) {
	ca := newCA(t)
	srvCert := ca.issue(t)
	srv := startServer(t, server.Options{TLS: true, TLSVerify: true, TLSTimeout: 2,
		TLSConfig: &tls.Config{Certificates: []tls.Certificate{srvCert}, ClientCAs: ca.pool,
			ClientAuth: tls.RequireAndVerifyClientCert, MinVersion: tls.VersionTLS12}})
	url := strings.Replace(srv.ClientURL(), "nats://", "tls://", 1)

	client := &tls.Config{RootCAs: ca.pool, Certificates: []tls.Certificate{ca.issue(t)}, MinVersion: tls.VersionTLS12}
	q, err := durable.Open[int](durable.Server{URL: url, TLS: client}, durable.Config{})
	if err != nil {
		t.Fatalf("Open with a certificate of the server's CA: %v", err)
	}
	ctx := context.Background()
	if err := q.Add(ctx, "one", 1); err != nil {
		t.Fatal(err)
	}
	if n, err := q.Len(ctx); err != nil || n != 1 {
		t.Errorf("Len = %d, %v; want 1", n, err)
	}
	q.Close()

	other := newCA(t)
	stranger := &tls.Config{RootCAs: ca.pool, Certificates: []tls.Certificate{other.issue(t)}, MinVersion: tls.VersionTLS12}
	if _, err := durable.Open[int](durable.Server{URL: url, TLS: stranger}, durable.Config{ConnectTimeout: 2 * time.Second}); !errors.Is(err, durable.ErrUnreachable) {
		t.Errorf("Open with a certificate another CA signed = %v; want ErrUnreachable", err)
	}
	if _, err := durable.Open[int](durable.Server{URL: srv.ClientURL()}, durable.Config{ConnectTimeout: 2 * time.Second}); !errors.Is(err, durable.ErrUnreachable) {
		t.Errorf("Open without TLS = %v; want ErrUnreachable", err)
	}
}
