package parallel

import (
	"reflect"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/internal/fair"
)

// waiter is an item of an agent with a Key, waiting to start, with the
// instant it came, as a time since the State's epoch: a waiter of an item
// free of pointers is too, which the garbage collector need not scan.
type waiter[In any] struct {
	item In
	at   time.Duration
}

// owed is what the key of a run of items started one after another from
// the fair line, n of them, was charged as they started: once their work
// ends, the line is told what it took. Items that went past the line owe
// nothing and have none. It holds no key, nor anything the garbage
// collector scans: the keys Post's bound is told of are gathered apart,
// as the items start (see named).
type owed struct {
	flow   fair.Flow // the key's accounts in the fair line
	n      int32
	charge time.Duration
}

// keyLine builds the fair line of cfg, which has its defaults, for items
// of type In: nil when cfg has no Key, else an [ErrConfig] when its Key
// is not a func(In) string or a weight is below 1.
func keyLine[In any](cfg Config) (func(In) string, *fair.Queue[string, waiter[In]], error) {
	if cfg.Key == nil {
		return nil, nil, nil
	}
	of, ok := cfg.Key.(func(In) string)
	if !ok || of == nil {
		return nil, nil, invalid("key must be a func(%v) string, got %T", reflect.TypeFor[In](), cfg.Key)
	}
	q, err := fair.New[string, waiter[In]](cfg.Quantum)
	if err != nil {
		return nil, nil, invalid("quantum must be positive, got %v", cfg.Quantum)
	}
	for k, w := range cfg.Weights {
		if err := q.SetWeight(k, w); err != nil {
			return nil, nil, invalid("weight of key %q must be at least 1, got %d", k, w)
		}
	}
	return of, q, nil
}

// queued counts the items accepted and not started.
func (s *State[In, Out]) queued() int {
	if s.line != nil {
		return s.line.Len() + s.waiting.Len()
	}
	return s.waiting.Len()
}

// acceptKeyed queues items that came at instant at, each in its key's
// line; or, while no key but one has items waiting, in the plain queue,
// past the lines: when none waits and every one of them starts at once in
// this step, or when they are all of the one key whose items wait there.
// With no other key waiting there are no shares to keep, and the items
// cost what a plain agent's do. Once another key's items come, those of
// the plain queue go to their key's line first, in their order: they
// came before.
func (s *State[In, Out]) acceptKeyed(items []In, at time.Time) {
	s.accepted += uint64(len(items))
	if s.epoch.IsZero() {
		s.epoch = at
	}
	if s.line.Len() == 0 {
		switch {
		case s.waiting.Len() == 0 && s.startsAll(len(items)):
			s.pass(items, at, "", false)
			return
		case s.waiting.Len() == 0 || s.alone:
			if key, ok := oneKey(s.keyOf, items); ok && (s.waiting.Len() == 0 || key == s.lone) {
				s.pass(items, at, key, true)
				return
			}
		}
		s.unpass()
	}
	since := at.Sub(s.epoch)
	for _, it := range items {
		s.line.Push(s.keyOf(it), waiter[In]{item: it, at: since})
	}
}

// oneKey returns the key of items, and whether they all have it.
func oneKey[In any](of func(In) string, items []In) (string, bool) {
	if len(items) == 0 {
		return "", false
	}
	key := of(items[0])
	for _, it := range items[1:] {
		if of(it) != key {
			return "", false
		}
	}
	return key, true
}

// pass puts items, which came at instant at, in the plain queue: all of
// key, when alone says so (else of any keys, all starting at once).
func (s *State[In, Out]) pass(items []In, at time.Time, key string, alone bool) {
	if s.waiting.Len() == 0 {
		s.lone, s.alone = key, alone
	}
	s.waiting = s.waiting.PushAll(items...)
	s.passedIn += uint64(len(items))
	s.arrivals = s.arrivals.Push(arrival{at: at, end: s.passedIn})
}

// unpass moves the items of the plain queue to their keys' lines, in
// their order, with the instants they came.
func (s *State[In, Out]) unpass() {
	for s.waiting.Len() > 0 {
		a := s.arrivals.At(0)
		n := min(int(a.end-s.passedOut), s.waiting.Len())
		var items []In
		items, s.waiting = s.waiting.Take(n)
		s.passedOut += uint64(n)
		_, s.arrivals = s.arrivals.Pop()
		since := a.at.Sub(s.epoch)
		for _, it := range items {
			s.line.Push(s.keyOf(it), waiter[In]{item: it, at: since})
		}
	}
	s.alone = false
}

// startsAll reports whether n items that came now would all start in this
// step, as startWaiting shares them among the free places: none waits,
// retries and held results leave them room, and no pacer holds them.
func (s *State[In, Out]) startsAll(n int) bool {
	if s.paced || s.cancelled != nil || s.retrying.Len() > 0 || s.kept() > 0 || s.closed {
		return false
	}
	most := s.batch()
	if !s.unordered && s.held.Len() >= s.limit*most {
		return false
	}
	room := s.limit - s.running.Len()
	return room > 0 && n <= room*most && n <= s.demand-s.assigned-s.held.Len()
}

// takePassed takes up to k items of the plain queue, which went past the
// lines, and returns them with how long they waited, charged nothing; for
// Post's bound of their keys, it names them.
func (s *State[In, Out]) takePassed(k int, at time.Time) ([]In, time.Duration, []owed) {
	k = min(k, s.waiting.Len())
	wait := max(at.Sub(s.arrivals.At(0).at), 0)
	var items []In
	items, s.waiting = s.waiting.Take(k)
	s.started += uint64(k)
	s.passedOut += uint64(k)
	for s.arrivals.Len() > 0 && s.arrivals.At(0).end <= s.passedOut {
		_, s.arrivals = s.arrivals.Pop()
	}
	switch {
	case !s.names:
	case s.alone:
		s.name(s.lone, k)
	default:
		for _, it := range items {
			s.name(s.keyOf(it), 1)
		}
	}
	return items, wait, nil
}

// name adds n items of key k to those whose slots Post gets back in this
// step (see freed), when Post bounds each key's items.
func (s *State[In, Out]) name(k string, n int) {
	if r := len(s.named); r > 0 && s.named[r-1].Key == k {
		s.named[r-1].N += n
		return
	}
	s.named = append(s.named, fair.Run{Key: k, N: n})
}

// takeKeyed removes k waiting items in the order the fair line hands them
// out, which start at instant at, and returns them with how long the
// first of them waited and what their keys were charged, a run of one
// key's items at a time.
func (s *State[In, Out]) takeKeyed(k int, at time.Time) ([]In, time.Duration, []owed) {
	items := make([]In, 0, k)
	owes := s.scratch[:0] // gathered here, then copied to a slice of their own
	var wait time.Duration
	ws := s.waiters[:0]
	for len(items) < k {
		var key string
		var flow fair.Flow
		var charge time.Duration
		key, flow, ws, charge = s.line.PopRun(k-len(items), ws[:0])
		if len(ws) == 0 {
			break
		}
		if len(items) == 0 {
			wait = max(at.Sub(s.epoch)-ws[0].at, 0)
		}
		for _, w := range ws {
			items = append(items, w.item)
		}
		if n := len(owes); n > 0 && owes[n-1].flow == flow {
			owes[n-1].n += int32(len(ws))
			owes[n-1].charge += charge
		} else {
			owes = append(owes, owed{flow: flow, n: int32(len(ws)), charge: charge})
		}
		if s.names {
			s.name(key, len(ws))
		}
	}
	clear(ws)
	s.waiters = ws[:0]
	s.started += uint64(len(items))
	s.scratch = owes[:0]
	return items, wait, s.keep(owes)
}

// keptBlock is how many runs keep puts in a block of memory of their own.
const keptBlock = 256

// keep returns a copy of owes that the batch started keeps: in the block
// of memory runs holds for many of them, so that a start costs no
// allocation of its own.
func (s *State[In, Out]) keep(owes []owed) []owed {
	n := len(owes)
	if n > keptBlock/4 {
		return append([]owed(nil), owes...)
	}
	if cap(s.runs)-len(s.runs) < n {
		s.runs = make([]owed, 0, keptBlock)
	}
	i := len(s.runs)
	s.runs = append(s.runs, owes...)
	return s.runs[i : i+n : i+n]
}

// ownLine readies a State that is not owned for a step in place: the line
// is copied, since it changes in place and the State given keeps its own,
// and the block of kept runs is left to it, since this State would append
// to it where the given one may too.
func (s *State[In, Out]) ownLine() {
	if s.line != nil && !s.owned {
		s.line = s.line.Clone()
		s.runs = nil
	}
}

// each returns owes one item a run: for items that go their own ways.
func each(owes []owed) []owed {
	var out []owed
	for _, o := range owes {
		for range o.n {
			out = append(out, owed{flow: o.flow, n: 1, charge: o.charge / time.Duration(o.n)})
		}
	}
	return out
}

// freed appends to fx, when Post bounds each key's items, the effect that
// gives back the credits of the keys of the items taken in this step (see
// fair.Freed, and name), which goes just before the agent.Demand that
// gives their slots back.
func (s *State[In, Out]) freed(fx []agent.Effect) []agent.Effect {
	if len(s.named) == 0 {
		return fx
	}
	runs := append([]fair.Run(nil), s.named...)
	clear(s.named)
	s.named = s.named[:0]
	return append(fx, agent.Send[fair.Freed]{Value: fair.Freed{Runs: runs}})
}

// settleOwed tells the fair line what the work of the items owes took in
// all: took, shared among them in proportion to what they were charged
// (so that a batch of a slow key's items and a quick key's, whose
// estimates were right, charges each key what its items took), or evenly
// when none was charged anything. An agent without a Key owes none.
func (s *State[In, Out]) settleOwed(owes []owed, took time.Duration) {
	if s.line == nil || len(owes) == 0 {
		return
	}
	took = max(took, 0)
	var charged time.Duration
	n := 0
	for _, o := range owes {
		charged += max(o.charge, 0)
		n += int(o.n)
	}
	for _, o := range owes {
		share := took * time.Duration(o.n) / time.Duration(n)
		if charged > 0 {
			share = time.Duration(float64(took) * float64(max(o.charge, 0)) / float64(charged))
		}
		s.line.DoneFlow(o.flow, int(o.n), o.charge, share)
	}
}
