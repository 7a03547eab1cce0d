package durable

import (
	"sync"
	"sync/atomic"

	"github.com/nats-io/nats.go/jetstream"
)

// spared counts, by stream sequence, the times this process handed an
// item back for want of anything to work on it (agent.ErrUnavailable):
// those deliveries spend none of the item's attempts. The count is the
// process's own: a restart forgets it, and the deliveries count then.
type spared struct {
	mu   sync.Mutex
	seqs map[uint64]int
	n    atomic.Int64 // len(seqs), read without mu: most items are never spared
}

// add counts one delivery of seq spared.
func (s *spared) add(seq uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.seqs == nil {
		s.seqs = make(map[uint64]int)
	}
	s.seqs[seq]++
	s.n.Store(int64(len(s.seqs)))
}

// forget forgets seq, acknowledged or buried.
func (s *spared) forget(seq uint64) {
	if s.n.Load() == 0 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.seqs, seq)
	s.n.Store(int64(len(s.seqs)))
}

// of returns how many deliveries of seq were spared.
func (s *spared) of(seq uint64) int {
	if s.n.Load() == 0 {
		return 0
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.seqs[seq]
}

// attempts returns the attempts an item of metadata md has spent: the
// times the queue handed it out, and the processes it killed (see package
// crashes), less the deliveries this process spared.
func (q *Queue[T]) attempts(md *jetstream.MsgMetadata) int {
	seq := md.Sequence.Stream
	return int(md.NumDelivered) + q.crash.Killed(seq) - q.spared.of(seq)
}

// handBack hands the item h holds back to the queue, for want of anything
// to work on it, to be handed out again after a backoff, sparing the
// attempt.
func (q *Queue[T]) handBack(h *hold) {
	delivered := uint64(1)
	if md, err := h.msg.Metadata(); err == nil {
		delivered = md.NumDelivered
		q.spared.add(md.Sequence.Stream)
	}
	_ = h.msg.NakWithDelay(backoff(delivered))
}
