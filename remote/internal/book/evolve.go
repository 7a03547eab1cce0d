package book

import (
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/internal/fair"
	"github.com/evolvekit/evolve/internal/pace"
	"github.com/evolvekit/evolve/remote/internal/census"
	"github.com/evolvekit/evolve/remote/internal/move"
)

// Evolve is the behaviour of a remote stage's master, an agent.Evolve over
// its book. It takes these messages:
//
//   - agent.Input[I]: items, each queued in the line of its tag
//     (Config.Tag), with Seqs counted from 0;
//   - agent.Event carrying a Joined, Asked, Outcomes, Moves, Left, Lost or
//     Beat: what the master's actor learns of its workers, each of them a
//     sign of life of the worker it names; and one carrying a Refused,
//     counted in the Snapshot;
//   - agent.Tick: its lease timer, its tag wait timer and its silence
//     timer (a stale Tick does what is due by its instant, which may be
//     nothing);
//   - agent.Pull, agent.Close, and agent.Query, answered with an
//     agent.Reply[census.Snapshot].
//
// After each message, in this order, it emits the results it may
// ([agent.Emit] of R, in input order unless Config.Unordered, within the
// demand it holds); hands queued items to the workers that asked for them,
// oldest first (new ones in their keys' turns with Config.Key, see
// fairline.go), while fewer than Config.Window items are leased or held
// ([agent.Send] of a Dispatch, one per worker and MaxBatch tasks, each
// task with its item's moves so far, and of a Hop for each move taken), after
// asking for the workers it gave up for silence to be expelled
// ([agent.Send] of an Expel); gives back the input slots of the items that
// left their line ([agent.Demand]); keeps one timer at the earliest lease
// deadline, one at the earliest tag wait and one at or before the earliest
// instant a silent worker is given up ([agent.Timer], [agent.Disarm]);
// with Config.Drain, says how many workers each tag's items want when that
// changed ([agent.Send] of a Want, see package want); and once closed with every
// item emitted, finishes ([agent.Finish] with the
// first failure). After that it only answers Queries. It returns
// [agent.Unhandled] for any other message.
//
// In input order, the next item to emit is handed out even when the window
// is full, should it have been taken back from a worker: the results held
// wait for it. So the window may be exceeded by that one item.
//
// Evolve updates the book it is given and returns it: see Book. Each
// message costs time proportional to the items it moves plus the tags
// known; a Lost also walks the items not yet emitted. Items cost no
// allocation of their own: a message allocates its effects, and a dispatch
// or an Emit its slice.
func Evolve[I, O, R any](b *Book[I, O, R], m agent.Msg) (*Book[I, O, R], []agent.Effect) {
	switch m := m.(type) {
	case agent.Query:
		return b, []agent.Effect{agent.Reply[census.Snapshot]{To: m.ID, Value: b.Snapshot()}}
	case agent.Event[Refused]:
		b.refused += m.Value.N
		return b, nil
	case agent.Event[Beat]:
		b.hear(m.Value.Worker, m.At)
		return b, nil
	case agent.Event[pace.Paced]:
		if b.finished || b.pacer.Paced() {
			return b, nil
		}
		return b, b.follow(m.At)
	case agent.Pull, agent.Input[I], agent.Close, agent.Tick, agent.Event[pace.Pass],
		agent.Event[Joined], agent.Event[Asked], agent.Event[Outcomes[O]], agent.Event[Moves[I]], agent.Event[Left], agent.Event[Lost]:
		if b.finished {
			return b, nil
		}
		return b, b.take(m)
	}
	return b, []agent.Effect{agent.Unhandled{}}
}

// take handles m, one of the messages Evolve takes, then settles.
func (b *Book[I, O, R]) take(m agent.Msg) []agent.Effect {
	var at time.Time
	ok := true
	switch m := m.(type) {
	case agent.Pull:
		ok, at = m.N > 0, m.At
		if ok {
			b.demand += min(m.N, agent.Unbounded-b.demand)
		}
	case agent.Input[I]:
		b.accept(m.Items, m.At)
		at = m.At
	case agent.Close:
		b.closed, at = true, m.At
		b.pacer.Close()
	case agent.Event[pace.Pass]:
		ok, at = b.pacer.Pass(m.Value.N), m.At
	case agent.Tick:
		ok, at = b.tick(m), m.At
	case agent.Event[Joined]:
		ok, at = b.join(m.Value), m.At
	case agent.Event[Asked]:
		ok, at = b.ask(m.Value, m.At), m.At
	case agent.Event[Outcomes[O]]:
		b.collect(m.Value, m.At)
		at = m.At
	case agent.Event[Moves[I]]:
		b.relay(m.Value, m.At)
		at = m.At
	case agent.Event[Left]:
		ok, at = b.leave(m.Value), m.At
	case agent.Event[Lost]:
		ok, at = b.lose(m.Value), m.At
	}
	if !ok {
		return nil
	}
	b.heardFrom(m, at)
	return b.settle(at)
}

// accept queues items in the lines of their tags, arrived at instant at.
func (b *Book[I, O, R]) accept(items []I, at time.Time) {
	for _, v := range items {
		k := 0
		if b.tagOf != nil {
			k = b.line(b.tagOf(v))
		}
		b.items.PushBack(entry[I, O]{value: v, tag: k, slot: true, prior: move.Prior(b.movesOf, v)})
		b.enqueue(k, b.accepted, v)
		b.lines[k].gauge.Arrive(at)
		b.accepted++
		b.queued++
		b.slotted++
	}
	if b.pacer.Paced() {
		b.pacer.Came(len(items))
	}
}

// settle performs what the last message, at instant at, made possible:
// emit, dispatch, give input slots back, arm the timers, finish.
func (b *Book[I, O, R]) settle(at time.Time) []agent.Effect {
	b.refuse()
	var fx []agent.Effect
	if len(b.dead) > 0 {
		fx = make([]agent.Effect, 0, len(b.dead)+4)
		for _, d := range b.dead {
			fx = append(fx, d)
		}
		clear(b.dead)
		b.dead = b.dead[:0]
	}
	fx = b.logHops(fx)
	fx = b.emit(fx)
	fx = b.expel(fx)
	fx = b.dispatch(fx, at)
	if b.pacer.Paced() {
		fx = b.reserve(fx)
	}
	if len(b.freed) > 0 {
		fx = withEffect(fx, agent.Send[fair.Freed]{Value: fair.Freed{Runs: b.freed}})
		b.freed = nil
	}
	if b.back > 0 {
		fx = withEffect(fx, agent.Demand{N: b.back})
		b.back = 0
	}
	if b.pacer.Paced() {
		fx = b.openRoom(fx)
	}
	b.watch(at)
	fx = b.arm(fx, at)
	fx = b.armSilence(fx, at)
	fx = b.want(fx, at)
	return b.finish(fx)
}

// emit passes on the held results that may go out, as far as demand
// allows: in input order, those that follow the last one emitted without a
// gap; unordered, in the order they came.
func (b *Book[I, O, R]) emit(fx []agent.Effect) []agent.Effect {
	if b.unordered {
		return b.emitUnordered(fx)
	}
	n := 0
	for n < b.demand && n < b.items.Len() && b.items.At(n).phase == phaseHeld {
		n++
	}
	if n == 0 {
		return fx
	}
	out := make([]R, n)
	for i := range out {
		out[i] = b.out(b.base, b.items.At(0))
		b.items.DropFront()
		b.base++
	}
	return b.release(fx, out)
}

// emitUnordered passes on the held results in the order they came, as far
// as demand allows, and forgets the items at the front that are emitted.
func (b *Book[I, O, R]) emitUnordered(fx []agent.Effect) []agent.Effect {
	n := min(b.held.Len(), b.demand)
	if n == 0 {
		return fx
	}
	out := make([]R, n)
	for i := range out {
		seq := b.held.PopFront()
		e := b.entry(seq)
		out[i] = b.out(seq, e)
		*e = entry[I, O]{phase: phaseEmitted}
	}
	for b.items.Len() > 0 && b.items.At(0).phase == phaseEmitted {
		b.items.DropFront()
		b.base++
	}
	return b.release(fx, out)
}

// release counts the results out and asks for their Emit.
func (b *Book[I, O, R]) release(fx []agent.Effect, out []R) []agent.Effect {
	b.nHeld -= len(out)
	b.demand -= len(out)
	b.emitted += len(out)
	return withEffect(fx, agent.Emit[R]{Values: out})
}

// finish says the master is done, once: input closed and every item
// accepted emitted.
func (b *Book[I, O, R]) finish(fx []agent.Effect) []agent.Effect {
	if !b.closed || b.finished || uint64(b.emitted) != b.accepted {
		return fx
	}
	b.finished = true
	return withEffect(fx, agent.Finish{Err: b.firstErr})
}
