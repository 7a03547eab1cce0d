package node

import (
	"context"
	"errors"
	"io"
	"testing"

	"github.com/asynkron/protoactor-go/eventstream"
	"github.com/asynkron/protoactor-go/remote"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

// script is a stream that hands out its messages, then fails with err.
type script struct {
	grpc.ClientStream
	msgs []*remote.RemoteMessage
	err  error
}

func (s *script) RecvMsg(m any) error {
	if len(s.msgs) == 0 {
		return s.err
	}
	out := m.(*remote.RemoteMessage)
	out.MessageType = s.msgs[0].MessageType
	s.msgs = s.msgs[1:]
	return nil
}

// reported opens, on outlets whose ends report to a new event stream, a
// stream to addr that stands for peer, or that cannot open if peer is
// nil, and returns it with the addresses of the ends reported so far.
func reported(t *testing.T, o *outlets, peer grpc.ClientStream, addr string) (grpc.ClientStream, *[]string) {
	t.Helper()
	events := &eventstream.EventStream{}
	var got []string
	events.Subscribe(func(evt any) {
		if e, ok := evt.(*remote.EndpointTerminatedEvent); ok {
			got = append(got, e.Address)
		}
	})
	o.ends.events = events
	cc, err := grpc.Dial(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	require.NoError(t, err)
	t.Cleanup(func() { _ = cc.Close() })
	cs, err := o.open(context.Background(), &grpc.StreamDesc{}, cc, "/remote.Remoting/Receive",
		func(context.Context, *grpc.StreamDesc, *grpc.ClientConn, string, ...grpc.CallOption) (grpc.ClientStream, error) {
			if peer == nil {
				return nil, errors.New("connection refused")
			}
			return peer, nil
		})
	require.NoError(t, err)
	return cs, &got
}

func connect() *remote.RemoteMessage {
	return &remote.RemoteMessage{MessageType: &remote.RemoteMessage_ConnectResponse{ConnectResponse: &remote.ConnectResponse{}}}
}

func disconnect() *remote.RemoteMessage {
	return &remote.RemoteMessage{MessageType: &remote.RemoteMessage_DisconnectRequest{DisconnectRequest: &remote.DisconnectRequest{}}}
}

// TestAStreamsEndIsReportedByTheNodeOnce: a peer's request to disconnect
// and the stream's later failure are one end, reported by the node with
// the peer's address, not handed to protoactor, whose stream ends cleanly.
func TestAStreamsEndIsReportedByTheNodeOnce(t *testing.T) {
	o := newOutlets()
	defer o.cut()
	cs, got := reported(t, o, &script{msgs: []*remote.RemoteMessage{connect(), disconnect()}, err: errors.New("reset")}, "127.0.0.1:7")
	var m remote.RemoteMessage
	require.NoError(t, cs.RecvMsg(&m))
	assert.NotNil(t, m.GetConnectResponse())
	assert.ErrorIs(t, cs.RecvMsg(&m), io.EOF, "the disconnect request is not handed on, and the failure after it is a clean end")
	assert.Equal(t, []string{"127.0.0.1:7"}, *got)
}

// TestAStreamThatEndsCleanlyIsNotReported: a stream the peer closed
// cleanly is protoactor's to end, as before.
func TestAStreamThatEndsCleanlyIsNotReported(t *testing.T) {
	o := newOutlets()
	defer o.cut()
	cs, got := reported(t, o, &script{msgs: []*remote.RemoteMessage{connect()}, err: io.EOF}, "127.0.0.1:7")
	var m remote.RemoteMessage
	require.NoError(t, cs.RecvMsg(&m))
	assert.ErrorIs(t, cs.RecvMsg(&m), io.EOF)
	assert.Empty(t, *got)
}

// TestNothingIsReportedOnceTheNodeStops: an end that comes after the
// node's stop began is not reported (protoactor's handler of it would
// find its map gone).
func TestNothingIsReportedOnceTheNodeStops(t *testing.T) {
	o := newOutlets()
	defer o.cut()
	cs, got := reported(t, o, &script{msgs: []*remote.RemoteMessage{connect(), disconnect()}, err: errors.New("reset")}, "127.0.0.1:7")
	var m remote.RemoteMessage
	require.NoError(t, cs.RecvMsg(&m))
	o.ends.stop()
	assert.ErrorIs(t, cs.RecvMsg(&m), io.EOF)
	assert.Empty(t, *got)
}

// TestAStreamThatCannotOpenIsReportedOnceUsed: a stream that could not
// open is reported once it fails, as protoactor would have.
func TestAStreamThatCannotOpenIsReportedOnceUsed(t *testing.T) {
	o := newOutlets()
	defer o.cut()
	cs, got := reported(t, o, nil, "127.0.0.1:9")
	require.NoError(t, cs.SendMsg(&remote.RemoteMessage{}))
	require.NoError(t, cs.RecvMsg(&remote.RemoteMessage{}), "the connect request is answered")
	require.NoError(t, cs.SendMsg(&remote.RemoteMessage{}))
	assert.ErrorIs(t, cs.RecvMsg(&remote.RemoteMessage{}), io.EOF)
	assert.Equal(t, []string{"127.0.0.1:9"}, *got)
	assert.Error(t, cs.Context().Err(), "its context has ended")
}

// TestWhateverAPeerSendsAfterItsAnswerIsTheEnd: protoactor takes any
// message after the answer to its connect request for the peer's end
// (a hostile peer may send anything); so does the node, which reports it
// once and hands none of it on.
func TestWhateverAPeerSendsAfterItsAnswerIsTheEnd(t *testing.T) {
	o := newOutlets()
	defer o.cut()
	cs, got := reported(t, o, &script{msgs: []*remote.RemoteMessage{connect(), connect(), {}, disconnect()}, err: io.EOF}, "127.0.0.1:7")
	var m remote.RemoteMessage
	require.NoError(t, cs.RecvMsg(&m))
	assert.ErrorIs(t, cs.RecvMsg(&m), io.EOF, "nothing after the answer is handed on")
	assert.Equal(t, []string{"127.0.0.1:7"}, *got)
}
