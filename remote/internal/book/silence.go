package book

import (
	"time"

	"github.com/evolvekit/evolve/agent"
)

// Silence: every message from a worker is a sign of life, a Beat too. A
// worker not heard from for Config.Silence is lost: its tasks are queued
// again, each as a failed attempt, as when its process dies, and the book
// asks for it to be expelled, so that what it sends later is refused and it
// registers again.

// silenceTimer is the tag of the master's timer at the earliest instant a
// worker, not heard from since, is given up.
const silenceTimer uint64 = 3

// hear notes that worker id was heard from at instant at.
func (b *Book[I, O, R]) hear(id WorkerID, at time.Time) {
	if w := b.member(id); w != nil && at.After(w.heard) {
		w.heard = at
	}
}

// heardFrom notes, for a message from a worker, that it was heard from at
// instant at.
func (b *Book[I, O, R]) heardFrom(m agent.Msg, at time.Time) {
	switch m := m.(type) {
	case agent.Event[Joined]:
		b.hear(m.Value.Worker, at)
	case agent.Event[Asked]:
		b.hear(m.Value.Worker, at)
	case agent.Event[Outcomes[O]]:
		b.hear(m.Value.Worker, at)
	case agent.Event[Moves[I]]:
		b.hear(m.Value.Worker, at)
	}
}

// sweep gives up, at instant at, every worker silent since at - silence. A
// Tick that comes more than an interval late means the master itself did
// not run for a while (its process was stopped, say), and its workers'
// messages may be waiting behind it: then each worker gets a full silence
// from at instead.
func (b *Book[I, O, R]) sweep(at time.Time) {
	if !b.hush.Fired(at) {
		return // a stale Tick: the timer pending is due later
	}
	late := at.Sub(b.hush.Due()) > b.heartbeat
	for i := 0; i < len(b.workers); {
		w := &b.workers[i]
		switch {
		case late:
			w.heard = at
		case !w.heard.Add(b.silence).After(at):
			b.expelled = append(b.expelled, w.id)
			b.lose(Lost{Worker: w.id}) // removes workers[i]
			continue
		}
		i++
	}
}

// expel asks for the workers given up for silence to be expelled.
func (b *Book[I, O, R]) expel(fx []agent.Effect) []agent.Effect {
	for _, id := range b.expelled {
		fx = withEffect(fx, agent.Send[Expel]{Value: Expel{Worker: id}})
	}
	b.expelled = b.expelled[:0]
	return fx
}

// armSilence keeps the silence timer pending while workers are registered,
// at or before the instant the first of them would be given up: since
// workers are only heard from later, a pending timer is never late, and
// it is moved only when it fires, so it costs a walk of the workers once an
// interval or so, not one a message.
func (b *Book[I, O, R]) armSilence(fx []agent.Effect, at time.Time) []agent.Effect {
	t := &b.hush
	switch {
	case b.silence == 0:
		return fx
	case len(b.workers) == 0:
		return t.Set(fx, silenceTimer, time.Time{}, false, at)
	case t.On():
		return fx
	}
	due := b.workers[0].heard
	for _, w := range b.workers[1:] {
		if w.heard.Before(due) {
			due = w.heard
		}
	}
	return t.Arm(fx, silenceTimer, due.Add(b.silence), at)
}
