package remote

// The tags of the master's timers, for the tests of package remote_test to
// tick them.
const (
	LeaseTimer   = leaseTimer
	TagWaitTimer = tagWaitTimer
)

// Bookkeeping returns a deep copy of what s knows, less its Tag function,
// for tests to compare two States with reflect.DeepEqual.
func Bookkeeping[I, O any](s State[I, O]) any {
	c := s.Clone()
	c.b.tagOf = nil
	return *c.b
}
