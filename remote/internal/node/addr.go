package node

import (
	"context"
	"crypto/tls"
	"net"
	"strconv"
	"time"

	"github.com/evolvekit/evolve/internal/loopback"
)

// Credentials checks that creds, or insecure, protects the connections to
// and from the hosts of addrs (where a node listens, and the master a
// worker dials), as internal/loopback's rule asks, and returns the TLS
// configuration to use, nil for none: creds itself, checked (see Check).
// A host name that the rule would refuse, with neither creds nor insecure,
// is looked up first: one that does not resolve (a typo, say) is refused
// as such, rather than as off the loopback.
func Credentials(creds *tls.Config, insecure bool, addrs ...string) (*tls.Config, error) {
	if creds != nil && insecure {
		return nil, Invalid("TLS and AllowInsecure exclude each other")
	}
	for _, addr := range addrs {
		host, _, err := SplitAddr(addr)
		if err != nil {
			return nil, err
		}
		if creds == nil && !insecure && !loopback.Is(host) {
			if err := resolves(addr, host); err != nil {
				return nil, err
			}
		}
		if err := loopback.Require(ErrConfig, "remote", addr, host, creds != nil, insecure); err != nil {
			return nil, err
		}
	}
	if creds == nil {
		return nil, nil
	}
	return creds, Check(creds, time.Now())
}

// LookupBound bounds the look-up of a host name in Credentials.
const LookupBound = 5 * time.Second

// resolves reports a host name, of addr, that does not resolve to an
// address: an IP address needs no look-up.
func resolves(addr, host string) error {
	if net.ParseIP(host) != nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), LookupBound)
	defer cancel()
	if _, err := net.DefaultResolver.LookupHost(ctx, host); err != nil {
		return Invalid("host %q of %s does not resolve: %v", host, addr, err)
	}
	return nil
}

// SplitAddr returns the host and port of addr, a concrete host and a port
// such as "127.0.0.1:7070".
func SplitAddr(addr string) (host string, port int, err error) {
	host, portText, err := net.SplitHostPort(addr)
	if err != nil {
		return "", 0, Invalid("address %q is not host:port: %v", addr, err)
	}
	port, err = strconv.Atoi(portText)
	if err != nil || port < 0 || port > 65535 {
		return "", 0, Invalid("address %q has no valid port", addr)
	}
	if host == "" || net.ParseIP(host).IsUnspecified() {
		return "", 0, Invalid("address %q must name a host to answer at, such as 127.0.0.1", addr)
	}
	return host, port, nil
}

// advertisable reports why addr cannot be the address a node tells its
// peers to reach it at, instead of the one it listens at: it must name a
// host and a port, not a wildcard or port 0. An empty addr is fine: the
// node then gives the address it listens at.
func advertisable(addr string) error {
	if addr == "" {
		return nil
	}
	host, portText, err := net.SplitHostPort(addr)
	if err != nil {
		return Invalid("advertised address %q is not host:port: %v", addr, err)
	}
	if port, err := strconv.Atoi(portText); err != nil || port < 1 || port > 65535 {
		return Invalid("advertised address %q has no valid port", addr)
	}
	if host == "" || net.ParseIP(host).IsUnspecified() {
		return Invalid("advertised address %q must name a host, such as 127.0.0.1", addr)
	}
	return nil
}
