package mtls

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
)

// ErrFiles is what the error of [Load] wraps when a file cannot be read
// or does not hold what it must.
var ErrFiles = errors.New("mtls: unusable files")

// Load returns a TLS configuration from three PEM files: caFile, the
// authorities that sign every peer's certificate, trusted alone, as server
// and as client; certFile, this process's certificate (its intermediates
// may follow), which must allow both server and client authentication; and
// keyFile, its private key. Peers must present a certificate those
// authorities signed (tls.RequireAndVerifyClientCert), over TLS 1.3.
//
// A peer dialed at an address checks that the certificate names its host
// (an IP SAN for an IP); where the addresses are not known in advance,
// give every certificate one DNS name and set the returned ServerName to
// it. The files are read once: a certificate renewed on disk needs a new
// Load, or a GetCertificate of your own.
func Load(caFile, certFile, keyFile string) (*tls.Config, error) {
	for _, f := range []struct{ name, path string }{{"CA file", caFile}, {"certificate file", certFile}, {"key file", keyFile}} {
		if f.path == "" {
			return nil, fmt.Errorf("%w: the %s is not named", ErrFiles, f.name)
		}
	}
	pem, err := os.ReadFile(caFile)
	if err != nil {
		return nil, fmt.Errorf("%w: CA file: %w", ErrFiles, err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("%w: CA file %s holds no PEM certificate", ErrFiles, caFile)
	}
	pair, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return nil, fmt.Errorf("%w: certificate %s with key %s: %w", ErrFiles, certFile, keyFile, err)
	}
	return &tls.Config{
		Certificates: []tls.Certificate{pair},
		RootCAs:      pool,
		ClientCAs:    pool,
		ClientAuth:   tls.RequireAndVerifyClientCert,
		MinVersion:   tls.VersionTLS13,
	}, nil
}
