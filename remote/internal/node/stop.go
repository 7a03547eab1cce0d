package node

import (
	"context"
	"errors"
	"io"
	"sync"
	"sync/atomic"

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
// its gRPC server at once, and last closes every connection it opened
// (see outlets.close). A connection that fails to open does not make
// protoactor sleep (see failed), so nothing is left for the stop to wait
// for.

// outlets are the streams a node opens to its peers, which all end, at
// once, when cut is called. protoactor opens them with a context that never
// ends, so outlets gives them one of its own through a client interceptor.
type outlets struct {
	ctx  context.Context
	cut  context.CancelFunc
	ends ends // how the end of each stream is reported

	mu    sync.Mutex
	conns map[*grpc.ClientConn]struct{} // those the streams were opened on
}

// newOutlets returns outlets not cut yet.
func newOutlets() *outlets {
	ctx, cut := context.WithCancel(context.Background())
	return &outlets{ctx: ctx, cut: cut, conns: make(map[*grpc.ClientConn]struct{})}
}

// dialOption returns the interceptor to give the node's connections.
func (o *outlets) dialOption() grpc.DialOption {
	return grpc.WithChainStreamInterceptor(o.open)
}

// open opens a stream that ends when the outlets are cut, or when its own
// context does. One that cannot be opened is a failed one (see failed).
func (o *outlets) open(ctx context.Context, desc *grpc.StreamDesc, cc *grpc.ClientConn, method string, streamer grpc.Streamer, opts ...grpc.CallOption) (grpc.ClientStream, error) {
	o.keep(cc)
	ctx, cancel := context.WithCancel(ctx)
	unhook := context.AfterFunc(o.ctx, cancel)
	cs, err := streamer(ctx, desc, cc, method, opts...)
	if err != nil {
		unhook()
		cancel()
		f := o.failed(err, false)
		return &outlet{ClientStream: f, o: o, addr: target(cc), broken: f, done: func() {}}, nil
	}
	return &outlet{ClientStream: cs, o: o, addr: target(cc), done: func() { unhook(); cancel() }}, nil
}

// keep notes cc, a connection of the node's, for close.
func (o *outlets) keep(cc *grpc.ClientConn) {
	o.mu.Lock()
	o.conns[cc] = struct{}{}
	o.mu.Unlock()
}

// close closes every connection the node opened, once its remoting has
// stopped. protoactor closes a connection as the actor that opened it
// stops, but an actor that was still connecting, or started as remoting
// stopped, may outlive the stop, and its connection would go on
// reconnecting to a peer that is gone, for as long as the process lives.
func (o *outlets) close() {
	o.mu.Lock()
	conns := o.conns
	o.conns = make(map[*grpc.ClientConn]struct{})
	o.mu.Unlock()
	for cc := range conns {
		_ = cc.Close()
	}
}

// target returns the address of the peer cc connects to, as protoactor
// dialed it.
func target(cc *grpc.ClientConn) string {
	if cc == nil {
		return ""
	}
	return cc.Target()
}

// outlet is a stream a node opened to a peer, at addr.
type outlet struct {
	grpc.ClientStream
	o        *outlets
	addr     string
	done     func()
	once     sync.Once
	greeted  bool    // it received the peer's answer to its connect request
	broken   *failed // what stands for it if it failed before that
	handed   bool    // a message, the connect request's answer, was handed on
	reported bool    // its end was reported (see ends)
}

// RecvMsg receives the peer's next message. The first is the answer to
// the connect request, which protoactor reads as it connects. It takes any
// later one (a peer's request to disconnect, or whatever a peer sends) for
// the connection's end, as it does the stream's failure: those are
// reported by the node's ends, not handed to protoactor. The stream ends
// cleanly for it (io.EOF) once it failed, and goes on after a message (it
// fails as protoactor stops the connection, and is not reported twice).
func (s *outlet) RecvMsg(m any) error {
	for {
		err := s.recv(m)
		if err == nil {
			if s.handed {
				s.end()
				continue
			}
			s.handed = true
			return nil
		}
		if !errors.Is(err, io.EOF) {
			s.end()
		}
		return io.EOF
	}
}

// end reports the stream's end, once.
func (s *outlet) end() {
	if !s.reported {
		s.reported = true
		s.o.ends.report(s.addr)
	}
}

// recv receives the peer's next message. Once the stream failed, it frees
// what open took; if it failed before the peer answered the connect
// request, a failed stream stands for it from then on.
func (s *outlet) recv(m any) error {
	if s.broken != nil {
		return s.broken.RecvMsg(m)
	}
	err := s.ClientStream.RecvMsg(m)
	if err == nil {
		s.greeted = true
		return nil
	}
	s.once.Do(s.done)
	if s.greeted {
		return err
	}
	s.broken = s.o.failed(err, false)
	return s.broken.RecvMsg(m)
}

// SendMsg sends m, or drops it once the stream failed.
func (s *outlet) SendMsg(m any) error {
	if s.broken != nil {
		return s.broken.SendMsg(m)
	}
	return s.ClientStream.SendMsg(m)
}

// CloseSend closes the stream's sending side.
func (s *outlet) CloseSend() error {
	if s.broken != nil {
		return s.broken.CloseSend()
	}
	return s.ClientStream.CloseSend()
}

// failed stands for a stream to a peer that could not be opened, or that
// failed before the peer answered its connect request. protoactor's
// connection, failing to connect, sleeps two seconds before it reports the
// peer gone and can stop (however many tries it is allowed); so failed
// answers the connect request instead, drops what is sent, and fails once
// the connection has sent something (so after protoactor reported it
// connected), or once the outlets are cut: then the peer is reported gone
// at once, and the node can stop.
type failed struct {
	err      error
	cut      <-chan struct{}
	answered atomic.Bool
	sent     chan struct{} // closed once something was sent after the answer
	once     sync.Once
}

// failed returns a failed stream for err, answered already or not.
func (o *outlets) failed(err error, answered bool) *failed {
	f := &failed{err: err, cut: o.ctx.Done(), sent: make(chan struct{})}
	f.answered.Store(answered)
	return f
}

// Header returns no metadata.
func (f *failed) Header() (metadata.MD, error) { return nil, f.err }

// Trailer returns no metadata.
func (*failed) Trailer() metadata.MD { return nil }

// Context returns a context that has ended.
func (*failed) Context() context.Context { return cutContext }

// SendMsg drops m.
func (f *failed) SendMsg(any) error {
	if f.answered.Load() {
		f.once.Do(func() { close(f.sent) })
	}
	return nil
}

// CloseSend does nothing but count as sending.
func (f *failed) CloseSend() error { return f.SendMsg(nil) }

// RecvMsg answers a connect request the first time; later, it fails once
// something was sent or the outlets are cut.
func (f *failed) RecvMsg(m any) error {
	msg, ok := m.(*remote.RemoteMessage)
	if ok && !f.answered.Load() {
		f.answered.Store(true)
		msg.MessageType = &remote.RemoteMessage_ConnectResponse{ConnectResponse: &remote.ConnectResponse{}}
		return nil
	}
	select {
	case <-f.sent:
	case <-f.cut:
	}
	return f.err
}

// cutContext is the context of a failed stream.
var cutContext = func() context.Context {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx
}()
