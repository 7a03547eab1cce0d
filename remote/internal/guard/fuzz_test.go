package guard_test

import (
	"testing"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/asynkron/protoactor-go/remote"
	"github.com/evolvekit/evolve/remote/internal/guard"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/proto"

	_ "github.com/evolvekit/evolve/remote/internal/wire" // its types are the node's own
)

// watchFrom returns the bytes of a Watch by an actor at addr.
func watchFrom(addr string) []byte {
	data, err := proto.Marshal(&actor.Watch{Watcher: actor.NewPID(addr, "w")})
	if err != nil {
		panic(err)
	}
	return data
}

// FuzzCheck decodes the fuzzer's bytes as a message batch, as a node's
// connection would, checks it, and delivers what Check kept the way
// protoactor's endpoint reader does: looking up its type, target and
// sender and deserializing it, which must never panic.
func FuzzCheck(f *testing.F) {
	self, from := "127.0.0.1:7070", "127.0.0.1:7071"
	seed := func(b *remote.MessageBatch) {
		data, err := proto.Marshal(b)
		require.NoError(f, err)
		f.Add(data)
	}
	target := []*actor.PID{actor.NewPID(self, "remote")}
	seed(&remote.MessageBatch{TypeNames: []string{"evolve.remote.v1.Ask"}, Targets: target,
		Senders: []*actor.PID{actor.NewPID(from, "w")}, Envelopes: []*remote.MessageEnvelope{{Sender: 1}, {Sender: 2}, {TypeId: 1}}})
	seed(&remote.MessageBatch{TypeNames: []string{"actor.Watch", "actor.Terminated", "x.Y", "evolve.remote.v1.Nope"}, Targets: target,
		Envelopes: []*remote.MessageEnvelope{{MessageData: watchFrom(from)}, {TypeId: 1}, {TypeId: 2}, {TypeId: 3}, {SerializerId: 1}}})
	f.Fuzz(func(t *testing.T, data []byte) {
		var b remote.MessageBatch
		if proto.Unmarshal(data, &b) != nil {
			return
		}
		guard.Check(&b, from, self, "evolve.remote.v1.")
		for _, e := range b.Envelopes {
			if e.Sender > 0 {
				require.Equal(t, from, b.Senders[e.Sender-1].Address)
			}
			require.Equal(t, self, b.Targets[e.Target].Address)
			_, _ = remote.Deserialize(e.MessageData, b.TypeNames[e.TypeId], e.SerializerId)
		}
	})
}
