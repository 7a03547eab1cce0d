package fifo

// Slots is a map from numbered places to values that is a value, for the
// values of a queue that arrive, or leave, out of order: the batches in
// flight by their first item's number, the results held until the ones
// before them come. Put and Take return new Slots and leave the ones they
// were called on as they were, so a state that holds Slots stays valid
// after evolve, and two states evolved from it do not see each other's
// changes. The zero Slots is empty.
//
// The versions of one Slots share one mutable map, which only the newest
// version holds; each other version holds the one change that turns the
// version after it into itself (this is Baker's trick for persistent
// arrays). A change to the newest version changes the map in place and
// costs O(1) time and one small allocation, whatever the number of values:
// that is how a state used as a state, each version evolved once, uses
// them. A version that is read or changed when it is not the newest first
// moves the map to itself, undoing the changes in between, which costs time
// in proportion to their number; so evolving one version twice costs little
// more than once, and every version stays valid for as long as it is kept.
//
// The map is an array indexed by the place modulo its length, for places
// that are numbers close to one another, as a queue's are (see table): a
// read or a change is one array access, not a hash map's probe, so it costs
// the same however many values are held. Places far apart still work, at
// the cost of a Go map for those that share a cell.
//
// Because reading a version may move the map, two versions of one Slots
// must not be used from two goroutines at once, nor one version read from
// two. Len reads nothing shared. An agent's state is evolved on one
// goroutine at a time, so an evolve function may hold Slots freely.
//
// Owned Slots (see [Slots.Owned]) keep no versions: a change changes the
// map in place, and the Slots it was called on see it too. They are for a
// state that nothing but its newest version is kept of, as an agent's
// runtime keeps it, and cost no allocation per change.
type Slots[V any] struct {
	v   *version[V] // nil for Slots that never held a value
	n   int         // this version's length
	own bool        // changes are made in place (see Owned)
}

// Owned returns s, and the Slots made from it by Put and Take, as Slots
// whose changes are made in place, with no version kept of what they
// were: s, and every Slots but the newest made from it, are no longer to
// be used.
func (s Slots[V]) Owned() Slots[V] {
	if s.v != nil {
		s.v.values() // the map is moved to s first
	}
	s.own = true
	return s
}

// version is one version of Slots: the newest holds the map, each other
// one the change that turns the next version into itself.
type version[V any] struct {
	m    *table[V]   // the values, on the newest version only
	next *version[V] // the version this one is a change of; nil on the newest
	key  uint64      // the place this version differs at from next
	val  V           // the value at key here, when has
	has  bool        // whether key holds a value here
}

// Len returns the number of values in s.
func (s Slots[V]) Len() int { return s.n }

// Get returns the value at place k, and whether there is one.
func (s Slots[V]) Get(k uint64) (V, bool) {
	if s.v == nil {
		var zero V
		return zero, false
	}
	return s.v.values().get(k)
}

// Put returns s with v at place k, in place of any value there.
func (s Slots[V]) Put(k uint64, v V) Slots[V] {
	var m *table[V]
	if s.v == nil {
		m = newTable[V]()
	} else {
		m = s.v.values()
	}
	old, had := m.set(k, v)
	if !had {
		s.n++
	}
	if s.own && s.v != nil {
		return s
	}
	s.v = s.v.change(m, k, old, had)
	return s
}

// Take returns the value at place k, whether there was one, and s without
// it.
func (s Slots[V]) Take(k uint64) (V, bool, Slots[V]) {
	var zero V
	if s.v == nil {
		return zero, false, s
	}
	m := s.v.values()
	old, had := m.del(k)
	if !had {
		return zero, false, s
	}
	s.n--
	if s.own {
		return old, true, s
	}
	s.v = s.v.change(m, k, old, true)
	return old, true, s
}

// change returns a new newest version holding m, after m was changed at k,
// where v (nil for the first) held old, or nothing unless had. v then holds
// that change's undoing.
func (v *version[V]) change(m *table[V], k uint64, old V, had bool) *version[V] {
	nv := &version[V]{m: m}
	if v != nil {
		v.m, v.next = nil, nv
		v.key, v.val, v.has = k, old, had
	}
	return nv
}

// values returns the map, moved to v first if v is not the newest version.
// It reverses the path from v to the newest version, then walks it back
// from there, applying each version's change to the map and leaving in the
// version it comes from the change that undoes it.
func (v *version[V]) values() *table[V] {
	if v.m != nil {
		return v.m
	}
	var back *version[V]
	cur := v
	for cur.m == nil {
		next := cur.next
		cur.next = back
		back, cur = cur, next
	}
	m := cur.m
	for back != nil {
		toward := back.next
		var old V
		var had bool
		if back.has {
			old, had = m.set(back.key, back.val)
		} else {
			old, had = m.del(back.key)
		}
		cur.m, cur.next = nil, back
		cur.key, cur.val, cur.has = back.key, old, had
		var zero V
		back.val, back.has = zero, false
		cur, back = back, toward
	}
	cur.m, cur.next = m, nil
	return m
}
