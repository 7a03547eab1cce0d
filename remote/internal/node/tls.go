package node

import (
	"crypto/tls"
	"crypto/x509"
	"net"
	"slices"
	"time"
)

// Check reports what in cfg would make the TLS between nodes not mutual,
// trust more than the authorities given, or fail every handshake at now:
// every node is both a server and a client, with one certificate.
func Check(cfg *tls.Config, now time.Time) error {
	switch {
	case cfg.ClientAuth != tls.RequireAndVerifyClientCert:
		return Invalid("TLS must require and verify client certificates (ClientAuth tls.RequireAndVerifyClientCert), got %v", cfg.ClientAuth)
	case cfg.ClientCAs == nil || cfg.RootCAs == nil:
		return Invalid("TLS must name ClientCAs and RootCAs: left nil, they trust every public authority")
	case len(cfg.Certificates) == 0 && (cfg.GetCertificate == nil || cfg.GetClientCertificate == nil):
		return Invalid("TLS holds no certificate: the node needs one as server and as client")
	}
	leaf, err := leafOf(cfg)
	if err != nil || leaf == nil {
		return err
	}
	return checkLeaf(leaf, now)
}

// leafOf returns the node's certificate, or nil when cfg picks it for
// each handshake.
func leafOf(cfg *tls.Config) (*x509.Certificate, error) {
	if len(cfg.Certificates) == 0 || len(cfg.Certificates[0].Certificate) == 0 {
		return nil, nil
	}
	if leaf := cfg.Certificates[0].Leaf; leaf != nil {
		return leaf, nil
	}
	leaf, err := x509.ParseCertificate(cfg.Certificates[0].Certificate[0])
	if err != nil {
		return nil, Invalid("TLS certificate does not parse: %v", err)
	}
	return leaf, nil
}

// checkLeaf reports a certificate that is not valid at now, or that its
// peers would refuse in one of the two roles every node plays.
func checkLeaf(leaf *x509.Certificate, now time.Time) error {
	switch {
	case now.Before(leaf.NotBefore):
		return Invalid("TLS certificate %q is not valid before %v", leaf.Subject, leaf.NotBefore)
	case now.After(leaf.NotAfter):
		return Invalid("TLS certificate %q expired at %v", leaf.Subject, leaf.NotAfter)
	}
	if len(leaf.ExtKeyUsage) == 0 || slices.Contains(leaf.ExtKeyUsage, x509.ExtKeyUsageAny) {
		return nil
	}
	if !slices.Contains(leaf.ExtKeyUsage, x509.ExtKeyUsageServerAuth) || !slices.Contains(leaf.ExtKeyUsage, x509.ExtKeyUsageClientAuth) {
		return Invalid("TLS certificate %q must allow both server and client authentication (extended key usage serverAuth and clientAuth): every node is both", leaf.Subject)
	}
	return nil
}

// checkName reports a certificate in cfg that its peers would refuse to
// dial at addr: one that names neither cfg.ServerName, when set, nor
// addr's host.
func checkName(cfg *tls.Config, addr string) error {
	leaf, err := leafOf(cfg)
	if err != nil || leaf == nil || cfg.InsecureSkipVerify {
		return err
	}
	name := cfg.ServerName
	if name == "" {
		name, _, _ = net.SplitHostPort(addr)
	}
	if err := leaf.VerifyHostname(name); err != nil {
		return Invalid("TLS certificate %q does not name %q, which its peers check as they dial it at %s: %v", leaf.Subject, name, addr, err)
	}
	return nil
}
