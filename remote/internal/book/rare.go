package book

import "github.com/evolvekit/evolve/remote/internal/aside"

// aside returns what item seq (e) keeps aside (see package aside), or nil.
func (b *Book[I, O, R]) aside(seq uint64, e *entry[I, O]) *aside.Rare {
	if !e.rare {
		return nil
	}
	return b.rares.Get(seq)
}

// keep returns what item seq (e) keeps aside, making it if need be.
func (b *Book[I, O, R]) keep(seq uint64, e *entry[I, O]) *aside.Rare {
	e.rare = true
	return b.rares.Keep(seq)
}

// out makes the result emitted for item seq (e), held, and forgets it.
func (b *Book[I, O, R]) out(seq uint64, e *entry[I, O]) R {
	b.clock.Forget(seq, e.since)
	if r := b.aside(seq, e); r != nil {
		b.rares.Forget(seq)
		return b.result(seq, e.result, r.Err, r.Path)
	}
	return b.result(seq, e.result, nil, nil)
}
