// Package fairline is the fair queue in front of one line of a remote
// stage's items: the master's book pushes each new item's Seq with its key
// (a client, a tenant), and pops Seqs as free places on its workers allow,
// so that the choice among the keys waiting is made when work can start.
// The order is package internal/fair's: among the keys with items waiting,
// work starts in proportion to their weights, charged by the time it
// takes, each key's items in the order they came. A [Line] remembers what
// it charged each item it handed out and the work measured for it, and
// tells the queue once, when the item ends: what its work took, over all
// its attempts, or what it was charged, if no work was measured for it.
//
// A Line is changed in place and is not safe for concurrent use; Clone
// copies it. A nil *Line is a line with no fair queue: it holds nothing,
// and its Work and End do nothing. It reads no clock: times come in its
// arguments.
package fairline

import (
	"time"

	"github.com/evolvekit/evolve/internal/fair"
)

// Line is a fair queue of item Seqs by key, with the accounts of the items
// handed out and not yet ended. Build one with New.
type Line struct {
	q     *fair.Queue[string, uint64]
	out   map[uint64]ticket // the items handed out and not yet ended
	tally map[string]*Count // by key, while it has items queued or out
}

// ticket is what a Line knows of an item it handed out.
type ticket struct {
	key    string
	charge time.Duration // what its key was charged as it started
	took   time.Duration // the work measured for it
	worked bool          // whether any was
}

// Count is what a Line counts of one key: its items queued, and those
// started since it last had none queued or out; and the key's weight, as
// AddCounts reports it.
type Count struct {
	Queued, Started, Weight int
	out                     int // handed out and not yet ended
}

// New returns an empty Line that credits a key quantum times its weight
// each turn, weights by key (1 for a key not in it). It returns an error
// if quantum is not positive or a weight is below 1.
func New(quantum time.Duration, weights map[string]int) (*Line, error) {
	q, err := fair.New[string, uint64](quantum)
	if err != nil {
		return nil, err
	}
	for k, w := range weights {
		if err := q.SetWeight(k, w); err != nil {
			return nil, err
		}
	}
	return &Line{q: q, out: map[uint64]ticket{}, tally: map[string]*Count{}}, nil
}

// Push queues item seq of key behind key's others.
func (l *Line) Push(key string, seq uint64) {
	l.q.Push(key, seq)
	l.count(key).Queued++
}

// Pop hands out the next item to start, and false if none is queued.
func (l *Line) Pop() (uint64, bool) {
	key, seq, charge, ok := l.q.Pop()
	if !ok {
		return 0, false
	}
	c := l.count(key)
	c.Queued--
	c.Started++
	c.out++
	l.out[seq] = ticket{key: key, charge: charge}
	return seq, true
}

// Work adds d, the time a worker took on an attempt at item seq, to what
// the item is charged as it ends. It does nothing for an item not handed
// out by l.
func (l *Line) Work(seq uint64, d time.Duration) {
	if l == nil {
		return
	}
	if t, ok := l.out[seq]; ok {
		t.took += max(d, 0)
		t.worked = true
		l.out[seq] = t
	}
}

// End charges item seq's key what its work took (what it was charged, if
// no work was measured for it: it failed without a result) once the item
// has ended for good. It does nothing for an item not handed out by l, or
// ended already.
func (l *Line) End(seq uint64) {
	if l == nil {
		return
	}
	t, ok := l.out[seq]
	if !ok {
		return
	}
	delete(l.out, seq)
	took := t.charge
	if t.worked {
		took = t.took
	}
	l.q.Done(t.key, t.charge, took)
	if c := l.tally[t.key]; c != nil {
		if c.out--; c.Queued == 0 && c.out == 0 {
			delete(l.tally, t.key)
		}
	}
}

// count returns the Count of key, making it if need be.
func (l *Line) count(key string) *Count {
	c := l.tally[key]
	if c == nil {
		c = &Count{}
		l.tally[key] = c
	}
	return c
}

// Len counts the items queued.
func (l *Line) Len() int {
	if l == nil {
		return 0
	}
	return l.q.Len()
}

// AddCounts adds the counts of the keys with items queued or out to
// those in sums.
func (l *Line) AddCounts(sums map[string]Count) {
	if l == nil {
		return
	}
	for k, c := range l.tally {
		s := sums[k]
		s.Queued += c.Queued
		s.Started += c.Started
		s.Weight = l.q.Weight(k)
		sums[k] = s
	}
}

// Clone returns a copy of l that shares no memory with it.
func (l *Line) Clone() *Line {
	c := &Line{q: l.q.Clone(), out: make(map[uint64]ticket, len(l.out)), tally: make(map[string]*Count, len(l.tally))}
	for s, t := range l.out {
		c.out[s] = t
	}
	for k, n := range l.tally {
		m := *n
		c.tally[k] = &m
	}
	return c
}
