package remote

import (
	"crypto/tls"
	"net"
	"strconv"
	"time"
)

// ListenOption changes how [Listen] opens a node.
type ListenOption func(*security)

// WithTLS makes the node talk to its workers over mutual TLS, with the
// certificates t names: see [TLS].
func WithTLS(t TLS) ListenOption { return func(s *security) { s.tls = t } }

// AllowInsecure lets a node listen off the loopback without TLS: whoever
// reaches its port may then register as a worker, and everything crosses
// the network in the clear. Keep it for networks that are trusted as a
// whole, or tunnelled.
func AllowInsecure() ListenOption { return func(s *security) { s.insecure = true } }

// security is what a node's connections rely on: TLS, or the loopback,
// or the user's word that the network is trusted.
type security struct {
	tls      TLS
	insecure bool
}

// credentials checks that s protects connections to and from the hosts
// of addrs (where the node listens, and the master it dials), and returns
// the TLS configuration to use, nil for none.
func (s security) credentials(addrs ...string) (*tls.Config, error) {
	if s.tls.enabled() && s.insecure {
		return nil, invalid("TLS and AllowInsecure exclude each other")
	}
	for _, addr := range addrs {
		host, _, err := splitAddr(addr)
		if err != nil {
			return nil, err
		}
		if !s.tls.enabled() && !s.insecure && !loopback(host) {
			return nil, invalid("%s is off the loopback: connections to it need TLS, or AllowInsecure to send everything in the clear to whoever reaches it", addr)
		}
	}
	if !s.tls.enabled() {
		return nil, nil
	}
	return s.tls.load(time.Now())
}

// loopback reports whether host is this machine's loopback.
func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// splitAddr returns the host and port of addr, a concrete host and a port
// such as "127.0.0.1:7070".
func splitAddr(addr string) (host string, port int, err error) {
	host, portText, err := net.SplitHostPort(addr)
	if err != nil {
		return "", 0, invalid("address %q is not host:port: %v", addr, err)
	}
	port, err = strconv.Atoi(portText)
	if err != nil || port < 0 || port > 65535 {
		return "", 0, invalid("address %q has no valid port", addr)
	}
	if host == "" || net.ParseIP(host).IsUnspecified() {
		return "", 0, invalid("address %q must name a host to answer at, such as 127.0.0.1", addr)
	}
	return host, port, nil
}
