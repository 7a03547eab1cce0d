package master

import (
	"math/rand/v2"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/remote/internal/book"
	"github.com/evolvekit/evolve/remote/internal/wire"
)

// incarnation draws the number that tells one run of a stage from another:
// a master restarted at the same address numbers its items and workers
// from the start again, and its workers must not take what they did for the
// run before as done for this one. It is never 0, which a worker that has
// not joined yet holds.
func incarnation() uint64 {
	for {
		if n := rand.Uint64(); n != 0 {
			return n
		}
	}
}

// beat takes a worker's heartbeat: it tells the book the worker lives,
// and answers whether the link knows it. A Beat from a worker it does not
// know (lost, expelled, or of another run) is refused and answered all the
// same, so that the worker registers again at once.
func (l *link[I, O]) beat(ctx actor.Context, m *wire.Beat) {
	if ctx.Sender() == nil {
		l.node.Refuse(l.cfg.Name, "a Beat with no sender")
		return
	}
	id, known := l.from(ctx, m.Worker, m.Incarnation)
	if known {
		l.post(agent.Event[book.Beat]{Value: book.Beat{Worker: id}})
	}
	ctx.Respond(&wire.Pulse{Incarnation: l.inc, Known: known, Worker: m.Worker})
}
