package book

import (
	"slices"

	"github.com/evolvekit/evolve/internal/fair"
	"github.com/evolvekit/evolve/remote/internal/fairline"
)

// Fair lines: with Config.Key, each line keeps its new items in a fair
// queue (package fairline) and lets them into its seqs, whence dispatch
// hands them out, only as the free places of the workers that take the
// line allow (letIn, before each dispatch), so that the choice among keys
// is made as work can start. Package remote's doc, under Fair shares,
// says the rest: items taken back skip the queue, which TagWait and the
// wants see; a worker of several lines counts its places for each, so
// that with tags a line may let in a few items early.

// fairLine returns a new line's fair queue, nil without Config.Key.
func (b *Book[I, O, R]) fairLine() *fairline.Line {
	if b.keyOf == nil {
		return nil
	}
	l, err := fairline.New(b.quantum, b.weights)
	if err != nil {
		panic("remote: " + err.Error()) // package remote checks the config
	}
	return l
}

// enqueue puts the new item seq, of line k, in the line's fair queue if
// it has one, or else in its seqs.
func (b *Book[I, O, R]) enqueue(k int, seq uint64, v I) {
	if l := &b.lines[k]; l.fair != nil {
		l.fair.Push(b.keyOf(v), seq)
	} else {
		l.seqs.PushBack(seq)
	}
}

// letIn lets items out of each fair queue into its line's seqs, as many
// as the free places of the workers that take the line, within the
// window, leave room for beyond the items in the seqs already.
func (b *Book[I, O, R]) letIn() {
	room := b.window - b.leased - b.nHeld
	for i := range b.lines {
		l := &b.lines[i]
		if l.fair.Len() == 0 || room <= 0 {
			continue
		}
		places := 0
		for j := range b.workers {
			if w := &b.workers[j]; slices.Contains(w.lines, i) {
				places += b.takes(w)
			}
		}
		for n := min(places, room) - l.seqs.Len(); n > 0 && l.fair.Len() > 0; n-- {
			seq, _ := l.fair.Pop()
			l.seqs.Add(seq)
			room--
		}
	}
}

// flush takes every item out of line i's fair queue into its seqs: they
// fail with the line's.
func (b *Book[I, O, R]) flush(i int) {
	for l := &b.lines[i]; l.fair.Len() > 0; {
		seq, _ := l.fair.Pop()
		l.seqs.Add(seq)
	}
}

// noteFreed notes, with Config.Key, the key of the item e, whose input
// slot comes back: Post bounds each key's items, and the Demand that
// gives the slots back comes after a fair.Freed that names their keys.
func (b *Book[I, O, R]) noteFreed(e *entry[I, O]) {
	if b.keyOf == nil {
		return
	}
	k := b.keyOf(e.value)
	if n := len(b.freed); n > 0 && b.freed[n-1].Key == k {
		b.freed[n-1].N++
		return
	}
	b.freed = append(b.freed, fair.Run{Key: k, N: 1})
}

// keys returns the counts of each key with items queued or started and
// not yet ended, over every line; nil without Config.Key.
func (b *Book[I, O, R]) keys() map[string]fairline.Count {
	if b.keyOf == nil {
		return nil
	}
	sums := map[string]fairline.Count{}
	for i := range b.lines {
		b.lines[i].fair.AddCounts(sums)
	}
	return sums
}
