package buffer

import "time"

// take adds items that weigh nothing to the open batch, at instant at. The
// items are copied: the message's slice is never kept.
func (s *State[T]) take(items []T, at time.Time) {
	if s.maxWeight > 0 {
		for _, v := range items {
			s.add(v, 0, at)
		}
		return
	}
	// Without weights, a batch is full at a count: the items are copied
	// into it in runs, each batch made once at its full size.
	most := s.size
	if most == 0 {
		most = s.queue
	}
	for len(items) > 0 {
		if len(s.open) == 0 {
			s.openedAt = at
			if s.open == nil {
				s.open = make([]T, 0, most)
			}
		}
		k := min(len(items), most-len(s.open))
		s.open = append(s.open, items[:k]...)
		items = items[k:]
		if s.full() {
			s.cut()
		}
	}
}

// takeWeighed adds weighed items to the open batch, at instant at.
func (s *State[T]) takeWeighed(items []Item[T], at time.Time) {
	for _, it := range items {
		s.add(it.Value, it.Weight, at)
	}
}

// add puts v, weighing w, into the open batch at instant at. With a maximum
// weight, the open batch is cut first if v would take it over; a batch is
// cut once it is full, so an item heavier than the maximum goes out alone.
// A negative w counts as 0. It changes s, a copy the caller owns, in place,
// so that a long Input does not copy the State once per item.
func (s *State[T]) add(v T, w int, at time.Time) {
	w = max(w, 0)
	// w > maxWeight-weight is weight+w > maxWeight, without overflow:
	// the open batch weighs less than maxWeight.
	if s.maxWeight > 0 && len(s.open) > 0 && w > s.maxWeight-s.weight {
		s.cut()
	}
	if len(s.open) == 0 {
		s.openedAt = at
	}
	s.open = append(s.open, v)
	s.weight += w
	if s.full() {
		s.cut()
	}
}

// full reports whether the open batch is full: it holds Size items, or
// weighs MaxWeight. Without Size it is also full once it holds Queue items:
// it holds every slot of the input queue then, so no item could come to cut
// it by weight.
func (s State[T]) full() bool {
	most := s.size
	if most == 0 {
		most = s.queue
	}
	return len(s.open) >= most || s.maxWeight > 0 && s.weight >= s.maxWeight
}

// cut closes the open batch, if it holds anything, and queues it for its
// flush. The next batch gets a new generation, so the linger timer of this
// one is stale from now on; settle disarms it.
func (s *State[T]) cut() {
	if len(s.open) == 0 {
		return
	}
	if s.armed {
		s.stale, s.staleTag = true, s.gen
	}
	s.ready = append(s.ready, s.open)
	s.open, s.weight, s.openedAt = nil, 0, time.Time{}
	s.gen, s.armed = s.gen+1, false
}
