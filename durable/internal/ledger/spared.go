package ledger

import (
	"sync"
	"sync/atomic"
)

// Spared counts, by stream sequence, the times this process handed an
// item back for want of anything to work on it (agent.ErrUnavailable):
// those deliveries spend none of the item's attempts. The count is the
// process's own: a restart forgets it, and the deliveries count then.
type Spared struct {
	mu   sync.Mutex
	seqs map[uint64]int
	n    atomic.Int64 // len(seqs), read without mu: most items are never spared
}

// Add counts one delivery of seq spared.
func (s *Spared) Add(seq uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.seqs == nil {
		s.seqs = make(map[uint64]int)
	}
	s.seqs[seq]++
	s.n.Store(int64(len(s.seqs)))
}

// Forget forgets seq, acknowledged or buried.
func (s *Spared) Forget(seq uint64) {
	if s.n.Load() == 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.seqs, seq)
	s.n.Store(int64(len(s.seqs)))
}

// Of returns how many deliveries of seq were spared.
func (s *Spared) Of(seq uint64) int {
	if s.n.Load() == 0 {
		return 0
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.seqs[seq]
}
