//go:build !race

// The tests in this file start nodes for real. They do not run under the
// race detector: protoactor's remote sets grpclog's logger without a lock
// as it starts, while gRPC may be logging for a node an earlier test
// started, which the detector reports.

package node

import (
	"encoding/binary"
	"io"
	"net"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/evolvekit/evolve/remote/internal/guard"
	"github.com/evolvekit/evolve/remote/internal/wire"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// HTTP/2 as the tests below read it (RFC 9113): the client's preface, and
// the frame types and the setting they look for.
const (
	h2Preface           = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
	h2Settings          = 0x4
	h2WindowUpdate      = 0x8
	h2InitialWindowSize = 0x4
	h2Ack               = 0x1
	h2DefaultWindow     = 65535
)

// h2Frame is one HTTP/2 frame.
type h2Frame struct {
	kind, flags byte
	stream      uint32
	payload     []byte
}

// readFrame reads the next frame from r.
func readFrame(r io.Reader) (h2Frame, error) {
	var head [9]byte
	if _, err := io.ReadFull(r, head[:]); err != nil {
		return h2Frame{}, err
	}
	n := int(head[0])<<16 | int(head[1])<<8 | int(head[2])
	f := h2Frame{kind: head[3], flags: head[4], stream: binary.BigEndian.Uint32(head[5:]) &^ (1 << 31), payload: make([]byte, n)}
	_, err := io.ReadFull(r, f.payload)
	return f, err
}

// windows reads frames from conn, for at most a few seconds, until the
// peer acknowledged the settings the test sent it, and returns the stream
// window the peer's own settings name (the default if none) and its
// connection's window, updated by what the peer sent before: gRPC sends
// its settings and its connection's window at once, before it reads.
func windows(t *testing.T, conn net.Conn) (stream, connection uint32) {
	t.Helper()
	require.NoError(t, conn.SetReadDeadline(time.Now().Add(5*time.Second)))
	stream, connection = h2DefaultWindow, h2DefaultWindow
	for {
		f, err := readFrame(conn)
		require.NoError(t, err, "the peer acknowledges the test's settings")
		switch {
		case f.kind == h2Settings && f.flags&h2Ack != 0:
			return stream, connection
		case f.kind == h2Settings:
			for p := f.payload; len(p) >= 6; p = p[6:] {
				if binary.BigEndian.Uint16(p) == h2InitialWindowSize {
					stream = binary.BigEndian.Uint32(p[2:])
				}
			}
		case f.kind == h2WindowUpdate && f.stream == 0:
			connection += binary.BigEndian.Uint32(f.payload) &^ (1 << 31)
		}
	}
}

// emptySettings is a SETTINGS frame that changes nothing.
var emptySettings = []byte{0, 0, 0, h2Settings, 0, 0, 0, 0, 0}

// startNode starts a node on the loopback, stopped as the test ends.
func startNode(t *testing.T) *actor.ActorSystem {
	t.Helper()
	sys, halt, err := Start("127.0.0.1:0", "", guard.New(WirePackage, func(string) {}), nil, wire.DefaultMaxMessage)
	require.NoError(t, err)
	t.Cleanup(halt)
	return sys
}

func TestANodeServesWithFixedFlowControlWindows(t *testing.T) {
	sys := startNode(t)
	conn, err := net.DialTimeout("tcp", sys.Address(), 5*time.Second)
	require.NoError(t, err)
	defer conn.Close()
	_, err = conn.Write(append([]byte(h2Preface), emptySettings...))
	require.NoError(t, err)
	stream, connection := windows(t, conn)
	assert.Equal(t, uint32(flowWindow), stream, "a stream's window is fixed, which turns gRPC's estimation and its pings off")
	assert.Equal(t, uint32(flowWindow), connection, "and so is the connection's")
}

func TestANodeDialsWithFixedFlowControlWindows(t *testing.T) {
	peer, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer peer.Close()
	require.NoError(t, peer.(*net.TCPListener).SetDeadline(time.Now().Add(5*time.Second)))
	sys := startNode(t)
	sys.Root.Send(actor.NewPID(peer.Addr().String(), "someone"), &wire.Beat{})
	conn, err := peer.Accept()
	require.NoError(t, err)
	defer conn.Close()
	require.NoError(t, conn.SetReadDeadline(time.Now().Add(5*time.Second)))
	preface := make([]byte, len(h2Preface))
	_, err = io.ReadFull(conn, preface)
	require.NoError(t, err)
	require.Equal(t, h2Preface, string(preface))
	_, err = conn.Write(emptySettings)
	require.NoError(t, err)
	stream, connection := windows(t, conn)
	assert.Equal(t, uint32(flowWindow), stream, "a stream's window is fixed, which turns gRPC's estimation and its pings off")
	assert.Equal(t, uint32(flowWindow), connection, "and so is the connection's")
}
