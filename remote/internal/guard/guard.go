// Package guard checks what peers send a node of protoactor remote before
// protoactor sees it. protoactor trusts its peers: a message batch whose
// type name is unknown, whose serializer, target, sender or type index is
// out of range, or a call it does not implement, panics inside its gRPC
// handler and ends the process; a PoisonPill or Stop from the wire stops
// the actor it names; and the sender of a message is whatever the peer
// writes. A [Guard] gives a gRPC server interceptors that refuse all of
// this and recover whatever panics still.
package guard

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/asynkron/protoactor-go/remote"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
)

// Guard checks the calls and messages one node receives. Its peers'
// messages pass only if they are of the node's own protobuf package, or
// are the system messages that watching needs (Watch, Unwatch, Terminated)
// and dead-letter answers; every sender, and every watcher or watchee a
// system message names, must be the node its connection said it is; and
// no two live connections may say they are the same node, but that a new
// one replaces one that has been quiet (see SetQuiet).
type Guard struct {
	pkg    string
	refuse func(why string)
	self   atomic.Pointer[string]
	quiet  atomic.Int64 // nanoseconds; 0 for never
	now    func() time.Time

	mu     sync.Mutex
	owners map[string]*peerStream // the live connections, by the address each said is its own
}

// New returns a Guard that lets through the messages of the protobuf
// package pkg, such as "evolve.remote.v1", and calls refuse, which must
// be quick, once for each call or message it refuses.
func New(pkg string, refuse func(why string)) *Guard {
	return &Guard{pkg: pkg + ".", refuse: refuse, owners: make(map[string]*peerStream), now: time.Now}
}

// SetQuiet lets a connection that says it is a node replace the one that
// said so first, if that one has received nothing for d: a peer cut off
// by a partition, whose old connection its node still holds open, half
// of it gone, comes back over a new one. Messages that come later over the
// connection replaced are refused. With d zero, the default, the first
// connection keeps the address as long as it lives.
func (g *Guard) SetQuiet(d time.Duration) { g.quiet.Store(int64(max(d, 0))) }

// SetSelf sets the node's own address, once it listens: a message whose
// target is another node is refused, because protoactor would pass it on
// as though the node sent it. Until then every message is refused.
func (g *Guard) SetSelf(addr string) { g.self.Store(&addr) }

// ServerOptions returns the interceptors to give the node's gRPC server.
func (g *Guard) ServerOptions() []grpc.ServerOption {
	return []grpc.ServerOption{grpc.ChainUnaryInterceptor(g.unary), grpc.ChainStreamInterceptor(g.stream)}
}

// unary refuses every unary call: nodes talk over the Receive stream
// alone, and protoactor implements none of the others (they panic).
func (g *Guard) unary(_ context.Context, _ any, info *grpc.UnaryServerInfo, _ grpc.UnaryHandler) (any, error) {
	g.refuse("unary call " + info.FullMethod)
	return nil, status.Errorf(codes.Unimplemented, "%s is not served", info.FullMethod)
}

// stream checks what a connection receives, and recovers a panic in its
// handler, which would otherwise end the process.
func (g *Guard) stream(srv any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, handler grpc.StreamHandler) (err error) {
	p := &peerStream{ServerStream: ss, g: g}
	p.heard.Store(g.now().UnixNano())
	defer func() {
		g.release(p)
		if r := recover(); r != nil {
			g.refuse(fmt.Sprintf("a call panicked: %v", r))
			err = status.Error(codes.Internal, "the call failed")
		}
	}()
	return handler(srv, p)
}

// claim records that p says it is the node at addr, unless another live
// connection said so first and has not been quiet for the guard's quiet;
// one that has, p replaces.
func (g *Guard) claim(p *peerStream, addr string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if owner, ok := g.owners[addr]; ok && owner != p {
		quiet := time.Duration(g.quiet.Load())
		if quiet == 0 || g.now().Sub(time.Unix(0, owner.heard.Load())) < quiet {
			return false
		}
		owner.replaced.Store(true)
	}
	g.owners[addr] = p
	return true
}

// release forgets the address p said was its own, as its connection ends.
func (g *Guard) release(p *peerStream) {
	if p.from == "" {
		return
	}
	g.mu.Lock()
	if g.owners[p.from] == p {
		delete(g.owners, p.from)
	}
	g.mu.Unlock()
}

// peerStream is one connection from a peer: it checks each message as it
// is received.
type peerStream struct {
	grpc.ServerStream
	g        *Guard
	from     string       // the address the peer said is its own, once it did
	heard    atomic.Int64 // when it last received a message, in Unix nanoseconds
	replaced atomic.Bool  // a newer connection from the same address took its place
}

// RecvMsg receives a message and checks it: a connect request must name an
// address no other live connection named, and a batch keeps only the
// envelopes Check lets through.
func (p *peerStream) RecvMsg(m any) error {
	if err := p.ServerStream.RecvMsg(m); err != nil {
		return err
	}
	p.heard.Store(p.g.now().UnixNano())
	msg, ok := m.(*remote.RemoteMessage)
	if !ok {
		return nil
	}
	switch t := msg.MessageType.(type) {
	case *remote.RemoteMessage_ConnectRequest:
		addr := t.ConnectRequest.GetServerConnection().GetAddress()
		if addr == "" || (p.from != "" && p.from != addr) || !p.g.claim(p, addr) {
			p.g.refuse(fmt.Sprintf("a connection says it is %q, which another connection is", addr))
			return status.Error(codes.PermissionDenied, "the address is taken")
		}
		p.from = addr
	case *remote.RemoteMessage_MessageBatch:
		if p.replaced.Load() {
			for range t.MessageBatch.Envelopes {
				p.g.refuse(fmt.Sprintf("a message over a connection from %q that a newer one replaced", p.from))
			}
			t.MessageBatch.Envelopes = nil
			return nil
		}
		self := ""
		if s := p.g.self.Load(); s != nil {
			self = *s
		}
		for _, why := range Check(t.MessageBatch, p.from, self, p.g.pkg) {
			p.g.refuse(why)
		}
	}
	return nil
}

// kind is what a type name in a batch may be.
type kind uint8

const (
	refused    kind = iota
	plain           // a message of the node's own package, or a dead-letter answer
	watch           // actor.Watch or actor.Unwatch
	terminated      // actor.Terminated
)

// kindOf says what the type named name is to a node whose own messages are
// of the package prefix pkg (with its final dot).
func kindOf(name, pkg string) kind {
	switch name {
	case "actor.Watch", "actor.Unwatch":
		return watch
	case "actor.Terminated":
		return terminated
	case "actor.DeadLetterResponse":
		return plain
	}
	if !strings.HasPrefix(name, pkg) {
		return refused
	}
	if t, _ := protoregistry.GlobalTypes.FindMessageByName(protoreflect.FullName(name)); t == nil {
		return refused
	}
	return plain
}

// Check removes from b the envelopes a node at self must not deliver,
// when they came over a connection from the node at from ("" if it has
// not said), and returns why for each. It keeps an envelope only if its
// type, target and sender indexes are in range, its serializer is
// protobuf's, its type is one kindOf lets through, its target is on self,
// its sender (if any) is on from, and, for a system message, the watcher
// or watchee it names is on from. What it keeps, protoactor delivers
// without a panic.
func Check(b *remote.MessageBatch, from, self, pkg string) []string {
	kinds := make([]kind, len(b.TypeNames))
	for i, name := range b.TypeNames {
		kinds[i] = kindOf(name, pkg)
	}
	var whys []string
	kept := b.Envelopes[:0]
	for _, e := range b.Envelopes {
		if why := check(b, e, kinds, from, self); why != "" {
			whys = append(whys, why)
			continue
		}
		kept = append(kept, e)
	}
	clear(b.Envelopes[len(kept):])
	b.Envelopes = kept
	return whys
}

// check returns why e is refused, or "".
func check(b *remote.MessageBatch, e *remote.MessageEnvelope, kinds []kind, from, self string) string {
	switch {
	case e == nil:
		return "an empty envelope"
	case e.TypeId < 0 || int(e.TypeId) >= len(kinds):
		return fmt.Sprintf("type index %d out of range", e.TypeId)
	case kinds[e.TypeId] == refused:
		return fmt.Sprintf("a message of type %q", b.TypeNames[e.TypeId])
	case e.SerializerId != 0:
		return fmt.Sprintf("serializer %d", e.SerializerId)
	case e.Target < 0 || int(e.Target) >= len(b.Targets) || b.Targets[e.Target] == nil:
		return fmt.Sprintf("target index %d out of range", e.Target)
	case self == "" || b.Targets[e.Target].Address != self:
		return fmt.Sprintf("a message for another node, %q", b.Targets[e.Target].Address)
	case e.Sender < 0 || int(e.Sender) > len(b.Senders) || (e.Sender > 0 && b.Senders[e.Sender-1] == nil):
		return fmt.Sprintf("sender index %d out of range", e.Sender)
	case e.Sender > 0 && (from == "" || b.Senders[e.Sender-1].Address != from):
		return fmt.Sprintf("a sender at %q over the connection of %q", b.Senders[e.Sender-1].Address, from)
	}
	switch kinds[e.TypeId] {
	case watch:
		return named(e, from, func(m proto.Message) *actor.PID {
			if w, ok := m.(*actor.Watch); ok {
				return w.Watcher
			}
			return m.(*actor.Unwatch).Watcher
		}, b.TypeNames[e.TypeId])
	case terminated:
		return named(e, from, func(m proto.Message) *actor.PID { return m.(*actor.Terminated).Who }, b.TypeNames[e.TypeId])
	}
	return ""
}

// named decodes the system message e carries and returns why it is
// refused if the PID it names (pid reads it) is not on from.
func named(e *remote.MessageEnvelope, from string, pid func(proto.Message) *actor.PID, name string) string {
	var m proto.Message
	switch name {
	case "actor.Watch":
		m = &actor.Watch{}
	case "actor.Unwatch":
		m = &actor.Unwatch{}
	default:
		m = &actor.Terminated{}
	}
	if err := proto.Unmarshal(e.MessageData, m); err != nil {
		return fmt.Sprintf("a %s that does not decode", name)
	}
	if p := pid(m); p == nil || from == "" || p.Address != from {
		return fmt.Sprintf("a %s naming another node than %q", name, from)
	}
	return ""
}
