package rate

import (
	"cmp"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/internal/fair"
	"github.com/evolvekit/evolve/internal/fifo"
)

// keyLine builds the fair line of cfg, nil when it has no Key, or an
// [ErrConfig] for a weight below 1 or a quantum that is negative.
func keyLine[T any](cfg Config[T]) (*fair.Queue[string, Item[T]], error) {
	if cfg.Key == nil {
		if len(cfg.Weights) > 0 {
			return nil, configError("weights need a key")
		}
		return nil, nil
	}
	if cfg.Quantum < 0 {
		return nil, configError("quantum must not be negative, got %v", cfg.Quantum)
	}
	q, err := fair.New[string, Item[T]](cmp.Or(cfg.Quantum, fair.DefaultQuantum))
	if err != nil {
		return nil, configError("quantum: %v", err)
	}
	for k, w := range cfg.Weights {
		if err := q.SetWeight(k, w); err != nil {
			return nil, configError("weight of key %q must be at least 1, got %d", k, w)
		}
	}
	return q, nil
}

// waiting counts the items waiting: those the line chose, and, with a
// Key, those still in their keys' lines.
func (s *State[T]) waiting() int {
	if s.line == nil {
		return s.queue.Len()
	}
	return s.queue.Len() + s.line.Len()
}

// queueKeyed puts items in their keys' lines.
func (s *State[T]) queueKeyed(items []Item[T]) {
	for _, it := range items {
		s.line.Push(s.keyOf(it.Value), it)
	}
}

// stage makes sure, with a Key, that n items wait in the queue, as far as
// the lines hold them: it takes them from the lines in their turns, each
// charged the bucket's time for its tokens, so that the choice among the
// keys is made as tokens come. Without a Key it does nothing.
func (s *State[T]) stage(n int) {
	for s.line != nil && s.queue.Len() < n {
		k, it, charge, ok := s.line.Pop()
		if !ok {
			return
		}
		s.line.Done(k, charge, s.bucketTime(it))
		s.queue = s.queue.Push(it)
		s.staged = s.staged.Push(k)
	}
}

// bucketTime is the time the bucket takes to refill the tokens it costs:
// what its key is charged for it.
func (s *State[T]) bucketTime(it Item[T]) time.Duration {
	r := s.bucket.limit.Rate
	if !(r > 0) {
		return time.Second
	}
	return time.Duration(it.price(s.bucket.limit.Burst) / r * float64(time.Second))
}

// passedKeys takes the keys of the first n items of the queue, which pass,
// and appends to fx the effect that gives their credits back to Post (see
// fair.Freed): none without a Key.
func (s *State[T]) passedKeys(n int, fx []agent.Effect) []agent.Effect {
	if s.line == nil || n == 0 {
		return fx
	}
	var runs []fair.Run
	for range n {
		var k string
		k, s.staged = s.staged.Pop()
		if l := len(runs); l > 0 && runs[l-1].Key == k {
			runs[l-1].N++
			continue
		}
		runs = append(runs, fair.Run{Key: k, N: 1})
	}
	return append(fx, agent.Send[fair.Freed]{Value: fair.Freed{Runs: runs}})
}

// stagedKeys is the keys of the items the lines let into the queue, in
// the queue's order.
type stagedKeys = fifo.Queue[string]
