package book

import (
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/remote/internal/move"
)

// Moves (package remote's doc says what they promise): a move counts only
// from the worker the item is leased to, under that attempt; the item's
// path keeps each step of its work, those its worker made itself (Steps)
// among them; a fair line charges the key the step that moved, and the
// steps after it skip the fair queue, as items taken back do.

// relay takes the moves a worker sent, at instant at, when it is heard
// from. Each for an attempt the worker held, leased to it or hung there,
// frees one of its slots, as an outcome does.
func (b *Book[I, O, R]) relay(ms Moves[I], at time.Time) {
	w := b.member(ms.Worker)
	if w != nil {
		w.heard = at
	}
	for _, m := range ms.Moves {
		ref := attemptRef{seq: m.Item, attempt: m.Attempt}
		hung := w != nil && len(w.hung) > 0 && b.unhang(w, ref)
		leased := w != nil && b.leasedTo(w, m.Item, m.Attempt)
		if leased {
			b.served(ms.Worker, Outcome[O]{Item: m.Item, Attempt: m.Attempt, Took: m.Took}, at)
			b.move(ms.Addr, m, at)
			w.moved++
		} else {
			b.duplicates++
		}
		if hung || leased {
			b.start(w, at)
		}
	}
}

// move takes m, the move of the item leased to the worker at addr, at
// instant at.
func (b *Book[I, O, R]) move(addr string, m Move[I], at time.Time) {
	e := b.entry(m.Item)
	b.unlease(e)
	b.lines[e.tag].fair.End(m.Item)
	e.value = m.Next
	hops := b.walk(m.Item, e, addr, m.Steps) + 1
	b.moves++
	var none O
	_, known := b.lineOf[m.Tag]
	switch {
	case e.prior+hops > b.maxMoves:
		b.conclude(m.Item, e, none, move.Error(m.Item, b.aside(m.Item, e).Steps(), b.maxMoves))
		return
	case !known && len(b.lines) >= move.MaxLines:
		b.conclude(m.Item, e, none, move.LinesError(m.Item, m.Tag))
		return
	}
	b.hops = append(b.hops, Hop{Item: m.Item, From: addr, Tag: m.Tag, Hops: hops, Next: m.Next})
	b.keep(m.Item, e).Moved = m.Attempt
	e.tag = b.line(m.Tag)
	b.lines[e.tag].gauge.Arrive(at)
	b.requeue(m.Item, e)
}

// walked notes the steps of item seq (e) whose outcome o, a success, the
// worker at addr sent, if the item moved before or o's worker went on
// with it itself. It reports false, having failed the item, if they are
// more moves than it may make.
func (b *Book[I, O, R]) walked(addr string, seq uint64, e *entry[I, O], o Outcome[O]) bool {
	if b.aside(seq, e).Steps() == nil && len(o.Steps) == 0 {
		return true
	}
	if e.prior+b.walk(seq, e, addr, o.Steps) > b.maxMoves {
		var none O
		b.conclude(seq, e, none, move.Error(seq, b.aside(seq, e).Steps(), b.maxMoves))
		return false
	}
	return true
}

// walk adds to the path of item seq (e) the step of its task on the worker
// at addr and the moves that worker made itself, to the tags steps, and
// counts and logs those the path keeps. It returns the moves the item has
// made, which may be more than its path holds steps for: the path stops at
// one step past the limit.
func (b *Book[I, O, R]) walk(seq uint64, e *entry[I, O], addr string, steps []string) int {
	r := b.keep(seq, e)
	from := len(r.Path)
	r.Path = move.Extend(r.Path, b.maxMoves+1, addr, append([]string{b.lines[e.tag].tag}, steps...)...)
	for i := from + 1; i < len(r.Path); i++ {
		b.hops = append(b.hops, Hop{Item: seq, From: addr, Tag: r.Path[i].Tag, Hops: i, Local: true})
		b.moves++
	}
	return from + len(steps)
}

// logHops asks for the moves the message took to be logged.
func (b *Book[I, O, R]) logHops(fx []agent.Effect) []agent.Effect {
	for _, h := range b.hops {
		fx = withEffect(fx, agent.Send[Hop]{Value: h})
	}
	clear(b.hops)
	b.hops = b.hops[:0]
	return fx
}
