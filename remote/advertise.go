package remote

import (
	"net"
	"strconv"
)

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
		return invalid("advertised address %q is not host:port: %v", addr, err)
	}
	if port, err := strconv.Atoi(portText); err != nil || port < 1 || port > 65535 {
		return invalid("advertised address %q has no valid port", addr)
	}
	if host == "" || net.ParseIP(host).IsUnspecified() {
		return invalid("advertised address %q must name a host, such as 127.0.0.1", addr)
	}
	return nil
}
