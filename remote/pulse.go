package remote

import (
	"fmt"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	"github.com/evolvekit/evolve/remote/internal/wire"
	"google.golang.org/protobuf/proto"
)

// A joined worker's clock ticks once a heartbeat interval (the master's
// Config.Heartbeat, which its Welcome carries). At each tick, a worker that
// has sent nothing since the last, or heard nothing, sends a Beat, which
// the master answers with a Pulse; a worker busy sending results and
// taking tasks sends none. A worker that has heard nothing from its master
// for heartbeatMisses ticks in a row has lost it, and rejoins.

// interval returns the heartbeat interval a Welcome names, or the default
// for one out of range.
func interval(m *wire.Welcome) time.Duration {
	d := time.Duration(m.Heartbeat)
	if d < time.Millisecond || d > time.Hour {
		return DefaultHeartbeat
	}
	return d
}

// pulse is one tick of a joined worker's heartbeat.
func (w *worker[I, O]) pulse(ctx actor.Context) {
	if w.heard {
		w.quiet = 0
	} else {
		w.quiet++
	}
	if w.quiet >= heartbeatMisses {
		w.lose(ctx, fmt.Sprintf("heard nothing from it for %v", time.Duration(w.quiet)*w.every))
		return
	}
	beat := !w.heard || !w.sent
	w.heard, w.sent = false, false
	if beat {
		w.tell(ctx, &wire.Beat{Worker: w.id, Incarnation: w.inc})
	}
	w.clock.Reset(w.every)
}

// pulsed takes the master's answer to a Beat: one that does not know the
// worker (it lost or expelled it, or it is another run of the stage) is
// rejoined at once. An answer to a Beat of an earlier join is stale.
func (w *worker[I, O]) pulsed(ctx actor.Context, m *wire.Pulse) {
	if w.joined && m.Worker == w.id && (!m.Known || m.Incarnation != w.inc) {
		w.lose(ctx, "it no longer knows the worker")
	}
}

// tell sends the master m, with the worker as its sender, which the master
// checks, and notes that the worker has spoken.
func (w *worker[I, O]) tell(ctx actor.Context, m proto.Message) {
	w.sent = true
	ctx.Request(w.master, m)
}

// ticked handles the worker's clock: a heartbeat while joined, another
// attempt while rejoining.
func (w *worker[I, O]) ticked(ctx actor.Context) {
	switch {
	case w.joined && !w.leaving:
		w.pulse(ctx)
	case w.rejoining:
		w.attempt(ctx)
	}
}
