package guard_test

import (
	"fmt"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/asynkron/protoactor-go/remote"
	"github.com/evolvekit/evolve/remote/internal/guard"
)

// A batch that asks a node to stop an actor, and one whose target index is
// out of range, lose those envelopes; a Watch from the node that sent it
// stays.
func ExampleCheck() {
	self, from := "127.0.0.1:7070", "127.0.0.1:7071"
	b := &remote.MessageBatch{
		TypeNames: []string{"actor.PoisonPill", "actor.Watch"},
		Targets:   []*actor.PID{actor.NewPID(self, "stage")},
		Envelopes: []*remote.MessageEnvelope{
			{TypeId: 0},
			{TypeId: 1, Target: 5},
			{TypeId: 1, MessageData: watchFrom(from)},
		},
	}
	for _, why := range guard.Check(b, from, self, "evolve.remote.v1.") {
		fmt.Println("refused:", why)
	}
	fmt.Println("kept:", len(b.Envelopes))
	// Output:
	// refused: a message of type "actor.PoisonPill"
	// refused: target index 5 out of range
	// kept: 1
}
