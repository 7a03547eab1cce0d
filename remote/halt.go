package remote

import (
	"context"
	"sync"

	"github.com/asynkron/protoactor-go/remote"
	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
)

// A node's stop is bounded. protoactor's graceful stop waits for each peer
// to close the connection it opened to the node, for up to ten seconds,
// and for each connection the node opened to end: one whose peer stopped
// (SIGSTOP) or went silent in the middle of its handshake, or that waits
// for room to send, never ends. So a node waits stopWait for the graceful
// stop, then ends the streams it opened to its peers (outlets) and stops
// its gRPC server at once.

// outlets are the streams a node opens to its peers, which all end, at
// once, when cut is called. protoactor opens them with a context that never
// ends, so outlets gives them one of its own through a client interceptor.
type outlets struct {
	ctx context.Context
	cut context.CancelFunc
}

// newOutlets returns outlets not cut yet.
func newOutlets() *outlets {
	ctx, cut := context.WithCancel(context.Background())
	return &outlets{ctx: ctx, cut: cut}
}

// dialOption returns the interceptor to give the node's connections.
func (o *outlets) dialOption() grpc.DialOption {
	return grpc.WithChainStreamInterceptor(o.open)
}

// open opens a stream that ends when the outlets are cut, or when its own
// context does. A stream opened once they are cut, or whose opening they
// cut, is a closed one (see closedOutlet).
func (o *outlets) open(ctx context.Context, desc *grpc.StreamDesc, cc *grpc.ClientConn, method string, streamer grpc.Streamer, opts ...grpc.CallOption) (grpc.ClientStream, error) {
	ctx, cancel := context.WithCancel(ctx)
	unhook := context.AfterFunc(o.ctx, cancel)
	cs, err := streamer(ctx, desc, cc, method, opts...)
	if err != nil {
		unhook()
		cancel()
		if o.ctx.Err() != nil {
			return &closedOutlet{}, nil
		}
		return nil, err
	}
	return &outlet{ClientStream: cs, o: o, done: func() { unhook(); cancel() }}, nil
}

// outlet is a stream a node opened to a peer.
type outlet struct {
	grpc.ClientStream
	o       *outlets
	done    func()
	once    sync.Once
	greeted bool // it received the peer's answer to its connect request
}

// RecvMsg receives the peer's next message. Once the stream failed, it
// frees what open took; if the outlets were cut before the peer answered
// the connect request, it answers it as closedOutlet does.
func (s *outlet) RecvMsg(m any) error {
	err := s.ClientStream.RecvMsg(m)
	if err == nil {
		s.greeted = true
		return nil
	}
	s.once.Do(s.done)
	if !s.greeted && s.o.ctx.Err() != nil {
		s.greeted = true
		return (&closedOutlet{}).RecvMsg(m)
	}
	return err
}

// closedOutlet stands for a stream to a peer that a stopping node will not
// open, or will not finish opening: it takes what is sent, answers the
// connect request, and then fails. protoactor's connection, failing to
// connect, would sleep two seconds before it could stop; given an answer,
// it stops at once, and its stream's failure is reported to nobody, as the
// node has stopped listening for it.
type closedOutlet struct {
	answered bool
}

// Header returns no metadata.
func (*closedOutlet) Header() (metadata.MD, error) { return nil, context.Canceled }

// Trailer returns no metadata.
func (*closedOutlet) Trailer() metadata.MD { return nil }

// Context returns a context that has ended.
func (*closedOutlet) Context() context.Context { return cutContext }

// SendMsg takes m and drops it.
func (*closedOutlet) SendMsg(any) error { return nil }

// CloseSend does nothing.
func (*closedOutlet) CloseSend() error { return nil }

// RecvMsg answers a connect request the first time; it fails after.
func (c *closedOutlet) RecvMsg(m any) error {
	msg, ok := m.(*remote.RemoteMessage)
	if c.answered || !ok {
		return context.Canceled
	}
	c.answered = true
	msg.MessageType = &remote.RemoteMessage_ConnectResponse{ConnectResponse: &remote.ConnectResponse{}}
	return nil
}

// cutContext is the context of a closedOutlet.
var cutContext = func() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}()
