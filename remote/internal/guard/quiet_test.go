package guard

import (
	"context"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/asynkron/protoactor-go/remote"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	_ "github.com/evolvekit/evolve/remote/internal/wire" // its types are the node's own
)

// fakeStream hands RecvMsg the message next holds.
type fakeStream struct {
	grpc.ServerStream
	next *remote.RemoteMessage
}

func (f *fakeStream) RecvMsg(m any) error {
	proto.Merge(m.(*remote.RemoteMessage), f.next)
	return nil
}

func (f *fakeStream) Context() context.Context { return context.Background() }

const self, peer = "127.0.0.1:7070", "127.0.0.1:7071"

// quietGuard returns a guard with a clock the test moves, and its refusals.
func quietGuard(quiet time.Duration) (*Guard, *time.Time, *[]string) {
	var whys []string
	g := New("evolve.remote.v1", func(why string) { whys = append(whys, why) })
	g.SetSelf(self)
	g.SetQuiet(quiet)
	now := time.Unix(1000, 0)
	g.now = func() time.Time { return now }
	return g, &now, &whys
}

// open returns a new connection to g, not yet said to be anyone.
func open(g *Guard) (*peerStream, *fakeStream) {
	f := &fakeStream{}
	p := &peerStream{ServerStream: f, g: g}
	p.heard.Store(g.now().UnixNano())
	return p, f
}

// say makes p say it is the node at addr.
func say(p *peerStream, f *fakeStream, addr string) error {
	f.next = &remote.RemoteMessage{MessageType: &remote.RemoteMessage_ConnectRequest{ConnectRequest: &remote.ConnectRequest{
		ConnectionType: &remote.ConnectRequest_ServerConnection{ServerConnection: &remote.ServerConnection{Address: addr}}}}}
	return p.RecvMsg(&remote.RemoteMessage{})
}

// ask makes p receive a batch of one Ask from the node at addr, and
// returns how many envelopes it kept.
func ask(t *testing.T, p *peerStream, f *fakeStream) int {
	t.Helper()
	f.next = &remote.RemoteMessage{MessageType: &remote.RemoteMessage_MessageBatch{MessageBatch: &remote.MessageBatch{
		TypeNames: []string{"evolve.remote.v1.Ask"},
		Targets:   []*actor.PID{actor.NewPID(self, "remote")},
		Senders:   []*actor.PID{actor.NewPID(peer, "w")},
		Envelopes: []*remote.MessageEnvelope{{Sender: 1}},
	}}}
	var m remote.RemoteMessage
	require.NoError(t, p.RecvMsg(&m))
	return len(m.GetMessageBatch().Envelopes)
}

func TestWithoutQuietTheFirstConnectionKeepsItsAddress(t *testing.T) {
	g, now, _ := quietGuard(0)
	a, fa := open(g)
	require.NoError(t, say(a, fa, peer))
	*now = now.Add(time.Hour)
	b, fb := open(g)
	assert.Equal(t, codes.PermissionDenied, status.Code(say(b, fb, peer)))
	assert.Equal(t, 1, ask(t, a, fa), "the first connection still serves")
}

func TestANewConnectionReplacesOneQuietForLongEnough(t *testing.T) {
	g, now, whys := quietGuard(time.Second)
	a, fa := open(g)
	require.NoError(t, say(a, fa, peer))
	*now = now.Add(800 * time.Millisecond)
	require.Equal(t, 1, ask(t, a, fa))
	*now = now.Add(900 * time.Millisecond)
	b, fb := open(g)
	assert.Equal(t, codes.PermissionDenied, status.Code(say(b, fb, peer)), "the first was heard from 900ms ago")
	*now = now.Add(100 * time.Millisecond)
	c, fc := open(g)
	require.NoError(t, say(c, fc, peer), "the first has been quiet for a second")
	assert.Equal(t, 1, ask(t, c, fc), "the new connection serves")
	n := len(*whys)
	assert.Zero(t, ask(t, a, fa), "what comes over the connection replaced is refused")
	assert.Len(t, *whys, n+1)
	assert.Contains(t, (*whys)[n], "a newer one replaced")
	g.release(a)
	d, fd := open(g)
	assert.Equal(t, codes.PermissionDenied, status.Code(say(d, fd, peer)), "the old connection's end frees nothing of the new")
}
