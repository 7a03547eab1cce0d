package worker

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
	"time"
)

// reach dials the master at addr once, within timeout, before the worker
// starts its node: a master nobody listens for, or whose TLS handshake
// fails, is then reported at once and by its cause, not after protoactor's
// retries as a master that stopped answering. With creds nil it only
// connects.
func reach(ctx context.Context, addr string, timeout time.Duration, creds *tls.Config) error {
	dialer := net.Dialer{Timeout: timeout}
	conn, err := dialer.DialContext(ctx, "tcp", addr)
	if err != nil {
		return fmt.Errorf("%w at %s: %v", ErrUnreachable, addr, err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(timeout))
	if creds == nil {
		return greet(conn, addr)
	}
	return handshake(ctx, conn, addr, timeout, creds)
}

// greet opens an HTTP/2 connection in the clear over conn, as the
// worker's node will: a master in the clear answers with gRPC's settings,
// and one that expects TLS hangs up, which is reported.
func greet(conn net.Conn, addr string) error {
	if _, err := conn.Write([]byte(http2Preface)); err != nil {
		return fmt.Errorf("%w at %s: %v", ErrUnreachable, addr, err)
	}
	_, err := conn.Read(make([]byte, 1))
	if errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET) {
		return fmt.Errorf("%w at %s: the master hung up on a connection in the clear (does it expect TLS?): %v", ErrUnreachable, addr, err)
	}
	return nil
}

// http2Preface is what an HTTP/2 client sends first.
const http2Preface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"

// handshake runs a TLS handshake with the master over conn, as the
// worker's node will, and reports its failure: a master whose certificate
// the worker does not trust, or a master that refuses the worker's.
func handshake(ctx context.Context, conn net.Conn, addr string, timeout time.Duration, creds *tls.Config) error {
	cfg := creds.Clone()
	cfg.NextProtos = []string{"h2"}
	if cfg.ServerName == "" {
		cfg.ServerName, _, _ = net.SplitHostPort(addr)
	}
	tc := tls.Client(conn, cfg)
	if err := tc.HandshakeContext(ctx); err != nil {
		return fmt.Errorf("%w at %s: the TLS handshake failed: %w", ErrUnreachable, addr, err)
	}
	// In TLS 1.3 the master judges the worker's certificate after the
	// worker's side of the handshake is done: the first thing it sends is
	// its verdict, an alert if it refused, gRPC's settings otherwise.
	_, err := tc.Read(make([]byte, 1))
	if op := (*net.OpError)(nil); errors.As(err, &op) && op.Op == "remote error" {
		return fmt.Errorf("%w at %s: the master refused the worker's certificate: %w", ErrUnreachable, addr, err)
	}
	return nil
}
