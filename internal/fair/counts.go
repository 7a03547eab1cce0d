package fair

// Counts counts, by key, the items that hold a slot of a bounded queue,
// for a Post that lets no key hold more than a bound of them: Take counts
// one in as it is posted, and Release counts out the runs a Freed names.
// A key whose count falls to zero is dropped. It is not safe for
// concurrent use.
type Counts struct {
	bound int
	keyed map[string]*int
	spare []*int // counts dropped, for keys to come: a few
	// lastKey and last are the key Take looked up last and its count,
	// while it has one: a flood posts runs of one key.
	lastKey string
	last    *int
}

// NewCounts returns Counts that let a key hold bound slots, at least one.
func NewCounts(bound int) *Counts {
	return &Counts{bound: max(bound, 1), keyed: map[string]*int{}}
}

// Take counts an item of key k in and reports true, if k holds fewer
// than the bound; else it reports false and counts nothing.
func (c *Counts) Take(k string) bool {
	n := c.last
	if n == nil || k != c.lastKey {
		n = c.keyed[k]
	}
	switch {
	case n == nil:
		if s := len(c.spare); s > 0 {
			n = c.spare[s-1]
			c.spare = c.spare[:s-1]
		} else {
			n = new(int)
		}
		*n = 1
		c.keyed[k] = n
	case *n >= c.bound:
		return false
	default:
		*n++
	}
	c.lastKey, c.last = k, n
	return true
}

// Release counts out the items of runs, whose slots come back.
func (c *Counts) Release(runs []Run) {
	for _, r := range runs {
		n := c.keyed[r.Key]
		switch {
		case n == nil:
		case *n > r.N:
			*n -= r.N
		default:
			delete(c.keyed, r.Key)
			if c.last == n {
				c.last = nil
			}
			if len(c.spare) < 64 {
				c.spare = append(c.spare, n)
			}
		}
	}
}
