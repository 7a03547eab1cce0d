package book

import (
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/remote/internal/census"
	"github.com/evolvekit/evolve/remote/internal/want"
)

// Scaling on the backlog: with Config.Drain set, the book says after each
// message how many workers it wants for each line, as package want
// estimates it from the line's Gauge, and asks for a Want when that
// changed. Since time alone lowers a line's arrival rate, a timer
// (wantTimer, every want.Step) brings the wants up to date while some
// line's rate is not 0.

// wantTimer is the tag of the want timer.
const wantTimer uint64 = 4

// seat adds sign times the slots of w to the lines it takes from.
func (b *Book[I, O, R]) seat(w *member, sign int) {
	for _, k := range w.lines {
		b.lines[k].gauge.Slots += sign * w.slots
	}
}

// served measures, at instant at, the task whose outcome o worker from
// sent back, if its item is leased to it under that attempt and its lease
// has started: for its line's want, the time from the lease's start to
// the outcome; for its charge in a fair line, what its work took, if the
// worker said, or else that.
func (b *Book[I, O, R]) served(from WorkerID, o Outcome[O], at time.Time) {
	e := b.entry(o.Item)
	if e == nil || e.phase != phaseLeased || e.waits || e.worker != from || e.attempt != o.Attempt {
		return
	}
	held := b.clock.Since(o.Item, e.since, at)
	if b.drain > 0 {
		b.lines[e.tag].gauge.Serve(held, at)
	}
	if o.Took > 0 {
		held = o.Took
	}
	b.lines[e.tag].fair.Work(o.Item, held)
}

// want brings every line's want up to date at instant at, keeps the want
// timer pending while some line's rate is not 0, and asks for a Want for
// each line whose want changed.
func (b *Book[I, O, R]) want(fx []agent.Effect, at time.Time) []agent.Effect {
	if b.drain <= 0 {
		return fx
	}
	moving := false
	for i := range b.lines {
		moving = b.lines[i].gauge.Age(at, b.closed) || moving
	}
	if t := &b.wantTick; moving && !t.On() {
		fx = t.Arm(fx, wantTimer, at.Add(want.Step), at)
	}
	for i := range b.lines {
		l := &b.lines[i]
		line := want.Line{Registered: b.registered(i), Queued: b.inLine(i), Drain: b.drain, Closed: b.closed}
		if l.gauge.Update(line, at) {
			fx = withEffect(fx, agent.Send[Want]{Value: Want{Tag: l.tag, Workers: l.gauge.Want}})
		}
	}
	return fx
}

// figures returns what each line measures, as the Snapshot reports it;
// nil without Config.Drain.
func (b *Book[I, O, R]) figures() []census.Line {
	if b.drain <= 0 {
		return nil
	}
	out := make([]census.Line, len(b.lines))
	for i := range b.lines {
		l := &b.lines[i]
		g := &l.gauge
		out[i] = census.Line{Tag: l.tag, Want: g.Want, Queued: b.inLine(i), Leased: g.Leased, Retrying: g.Retrying,
			Rate: g.Rate(), Service: g.Service()}
	}
	return out
}
