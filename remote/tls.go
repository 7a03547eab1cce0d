package remote

import (
	"crypto/tls"
	"crypto/x509"
	"net"
	"os"
	"slices"
	"time"
)

// TLS is how a node proves who it is and which peers it trusts: with it,
// every connection between master and workers is mutual TLS, and a peer
// without a certificate signed by the trusted authority is refused during
// the handshake, before anything it sends is read. Each node is both a
// server (its peers dial it) and a client (it dials them), with one
// certificate for both.
//
// Give either the three files or Config. The zero value means no TLS.
type TLS struct {
	// CAFile is a PEM file of the certificate authorities that sign the
	// peers' certificates: the node trusts those alone, as server and as
	// client.
	CAFile string
	// CertFile is a PEM file of the node's certificate (its intermediates
	// may follow). It must allow both server and client authentication,
	// and name the host the node listens at (an IP SAN for an IP), or
	// ServerName.
	CertFile string
	// KeyFile is a PEM file of the certificate's private key.
	KeyFile string
	// ServerName, when set, is the name (a DNS SAN) every node's
	// certificate carries, checked instead of the host a peer is dialed
	// at. Nodes whose addresses are not known in advance may share it.
	ServerName string
	// Config, instead of the files, is used as it is for both directions.
	// It must hold a certificate, require and verify client certificates
	// (ClientAuth tls.RequireAndVerifyClientCert), and name ClientCAs and
	// RootCAs: left nil, they would trust every public authority. The
	// node does not change it.
	Config *tls.Config
}

// enabled reports whether t asks for TLS.
func (t TLS) enabled() bool { return t != TLS{} }

// load returns the configuration t describes, checked, for both
// directions.
func (t TLS) load(now time.Time) (*tls.Config, error) {
	if t.Config != nil {
		if t.CAFile != "" || t.CertFile != "" || t.KeyFile != "" || t.ServerName != "" {
			return nil, invalid("TLS takes either Config or the files and ServerName, not both")
		}
		return t.Config, checkConfig(t.Config, now)
	}
	cfg, err := t.fromFiles()
	if err != nil {
		return nil, err
	}
	return cfg, checkConfig(cfg, now)
}

// fromFiles reads the authority, the certificate and its key.
func (t TLS) fromFiles() (*tls.Config, error) {
	for _, f := range []struct{ name, path string }{{"CAFile", t.CAFile}, {"CertFile", t.CertFile}, {"KeyFile", t.KeyFile}} {
		if f.path == "" {
			return nil, invalid("TLS needs CAFile, CertFile and KeyFile: %s is empty", f.name)
		}
	}
	pem, err := os.ReadFile(t.CAFile)
	if err != nil {
		return nil, invalid("TLS CA file: %v", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, invalid("TLS CA file %s holds no PEM certificate", t.CAFile)
	}
	pair, err := tls.LoadX509KeyPair(t.CertFile, t.KeyFile)
	if err != nil {
		return nil, invalid("TLS certificate %s with key %s: %v", t.CertFile, t.KeyFile, err)
	}
	return &tls.Config{
		Certificates: []tls.Certificate{pair},
		RootCAs:      pool,
		ClientCAs:    pool,
		ClientAuth:   tls.RequireAndVerifyClientCert,
		MinVersion:   tls.VersionTLS13,
		ServerName:   t.ServerName,
	}, nil
}

// checkConfig reports what in cfg would make the TLS not mutual, trust
// more than the authorities given, or fail every handshake.
func checkConfig(cfg *tls.Config, now time.Time) error {
	switch {
	case cfg.ClientAuth != tls.RequireAndVerifyClientCert:
		return invalid("TLS Config must require and verify client certificates (ClientAuth tls.RequireAndVerifyClientCert), got %v", cfg.ClientAuth)
	case cfg.ClientCAs == nil || cfg.RootCAs == nil:
		return invalid("TLS Config must name ClientCAs and RootCAs: left nil, they trust every public authority")
	case len(cfg.Certificates) == 0 && (cfg.GetCertificate == nil || cfg.GetClientCertificate == nil):
		return invalid("TLS Config holds no certificate: the node needs one as server and as client")
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
		return nil, invalid("TLS certificate does not parse: %v", err)
	}
	return leaf, nil
}

// checkLeaf reports a certificate that is not valid at now, or that its
// peers would refuse in one of the two roles every node plays.
func checkLeaf(leaf *x509.Certificate, now time.Time) error {
	switch {
	case now.Before(leaf.NotBefore):
		return invalid("TLS certificate %q is not valid before %v", leaf.Subject, leaf.NotBefore)
	case now.After(leaf.NotAfter):
		return invalid("TLS certificate %q expired at %v", leaf.Subject, leaf.NotAfter)
	}
	if len(leaf.ExtKeyUsage) == 0 || slices.Contains(leaf.ExtKeyUsage, x509.ExtKeyUsageAny) {
		return nil
	}
	if !slices.Contains(leaf.ExtKeyUsage, x509.ExtKeyUsageServerAuth) || !slices.Contains(leaf.ExtKeyUsage, x509.ExtKeyUsageClientAuth) {
		return invalid("TLS certificate %q must allow both server and client authentication (extended key usage serverAuth and clientAuth): every node is both", leaf.Subject)
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
		return invalid("TLS certificate %q does not name %q, which its peers check as they dial it at %s: %v", leaf.Subject, name, addr, err)
	}
	return nil
}
