// Package loopback holds the rule every process of this module that
// listens for peers, or dials them, follows: off this machine's loopback,
// its connections need TLS, or the user's word (AllowInsecure) that the
// network is trusted as a whole.
package loopback

import (
	"net"

	"github.com/evolvekit/evolve/internal/errs"
)

// Is reports whether host names this machine's loopback only.
func Is(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Require returns, when host (of addr) is off the loopback and the
// connections to it have neither TLS nor insecure, the error saying so: of
// kind, with a message beginning with pkg, as errs.Invalid builds it. It
// returns nil otherwise.
func Require(kind error, pkg, addr, host string, tls, insecure bool) error {
	if tls || insecure || Is(host) {
		return nil
	}
	return errs.Invalid(kind, pkg, "%s is off the loopback: connections to it need TLS, or AllowInsecure to send everything in the clear to whoever reaches it", addr)
}
