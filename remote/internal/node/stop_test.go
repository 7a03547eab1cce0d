package node

import (
	"context"
	"errors"
	"io"
	"testing"

	"github.com/asynkron/protoactor-go/remote"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc"
	"google.golang.org/grpc/connectivity"
	"google.golang.org/grpc/credentials/insecure"
)

func TestAStreamThatCannotOpenAnswersTheConnectRequestThenFailsOnceUsed(t *testing.T) {
	o := newOutlets()
	defer o.cut()
	refused := errors.New("connection refused")
	cs, err := o.open(context.Background(), &grpc.StreamDesc{}, nil, "/remote.Remoting/Receive",
		func(context.Context, *grpc.StreamDesc, *grpc.ClientConn, string, ...grpc.CallOption) (grpc.ClientStream, error) {
			return nil, refused
		})
	require.NoError(t, err, "protoactor would sleep two seconds on an error")
	require.NoError(t, cs.SendMsg(&remote.RemoteMessage{}), "the connect request is taken")
	var answer remote.RemoteMessage
	require.NoError(t, cs.RecvMsg(&answer))
	assert.NotNil(t, answer.GetConnectResponse(), "the connect request is answered")
	require.NoError(t, cs.SendMsg(&remote.RemoteMessage{}), "what is sent after is dropped")
	assert.ErrorIs(t, cs.RecvMsg(&remote.RemoteMessage{}), io.EOF, "and the stream then ends, its end reported by the node (see ends_test.go)")
}

func TestAFailedStreamFailsOnceTheOutletsAreCut(t *testing.T) {
	o := newOutlets()
	f := o.failed(context.Canceled, true)
	o.cut()
	assert.ErrorIs(t, f.RecvMsg(&remote.RemoteMessage{}), context.Canceled, "it fails though nothing was sent")
	_, err := f.Header()
	assert.Error(t, err)
	assert.Error(t, f.Context().Err())
}

func TestClosingTheOutletsClosesEveryConnectionAStreamWasOpenedOn(t *testing.T) {
	o := newOutlets()
	defer o.cut()
	cc, err := grpc.Dial("127.0.0.1:1", grpc.WithTransportCredentials(insecure.NewCredentials()))
	require.NoError(t, err)
	_, err = o.open(context.Background(), &grpc.StreamDesc{}, cc, "/remote.Remoting/Receive",
		func(context.Context, *grpc.StreamDesc, *grpc.ClientConn, string, ...grpc.CallOption) (grpc.ClientStream, error) {
			return nil, errors.New("connection refused")
		})
	require.NoError(t, err)
	cc.Connect() // it would go on reconnecting to the dead peer
	o.close()
	assert.Equal(t, connectivity.Shutdown, cc.GetState())
	o.close() // twice does no harm
}
