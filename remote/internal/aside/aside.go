// Package aside keeps what few of a remote stage's items need beside
// their record in the book, by Seq: the error of an item failed for good,
// and the path of one that moved. Kept aside, it leaves the records of
// the other items small and, with items and results that hold none, free
// of pointers, which the garbage collector then need not scan.
package aside

import (
	"maps"
	"slices"

	"github.com/evolvekit/evolve/remote/internal/move"
)

// Rare is what one item keeps aside. A nil *Rare is an item that keeps
// nothing aside.
type Rare struct {
	Err   error       // the error it failed with for good
	Path  []move.Step // the steps of its work, once it moved
	Moved int         // the attempt its last move came from: no outcome of an earlier one counts
}

// Steps returns r's path, nil if it never moved.
func (r *Rare) Steps() []move.Step {
	if r == nil {
		return nil
	}
	return r.Path
}

// Stale reports whether attempt came before the item's last move.
func (r *Rare) Stale(attempt int) bool { return r != nil && r.Moved > 0 && attempt <= r.Moved }

// Store holds what the items keep aside, by Seq. The zero Store holds
// nothing.
type Store struct{ m map[uint64]*Rare }

// Get returns what item seq keeps aside, nil if nothing.
func (s *Store) Get(seq uint64) *Rare { return s.m[seq] }

// Keep returns what item seq keeps aside, making it if need be.
func (s *Store) Keep(seq uint64) *Rare {
	if r := s.m[seq]; r != nil {
		return r
	}
	if s.m == nil {
		s.m = map[uint64]*Rare{}
	}
	r := &Rare{}
	s.m[seq] = r
	return r
}

// Forget lets go of what item seq keeps aside.
func (s *Store) Forget(seq uint64) { delete(s.m, seq) }

// Seqs returns the Seqs of the items that keep something aside, in no
// order.
func (s *Store) Seqs() []uint64 { return slices.Collect(maps.Keys(s.m)) }

// Clone returns a copy of s that shares nothing with it but the paths,
// which are never written in place.
func (s *Store) Clone() Store {
	c := Store{m: maps.Clone(s.m)}
	for seq, r := range c.m {
		r := *r
		c.m[seq] = &r
	}
	return c
}
