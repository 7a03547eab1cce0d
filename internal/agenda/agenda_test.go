package agenda_test

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/evolvekit/evolve/internal/agenda"
	"github.com/stretchr/testify/assert"
)

// Events come out by instant, and those of one instant in the order they
// were added, whether they were added at that instant or before it.
func TestEventsComeOutByInstantThenInTheOrderAdded(t *testing.T) {
	var a agenda.Agenda[string]
	a.Add(2, 0, "c")
	a.Add(0, 0, "a")
	a.Add(1, 0, "b1")
	a.Add(1, 0, "b2")
	var got []string
	next := func() time.Duration {
		at, e := a.Next()
		got = append(got, e)
		return at
	}
	assert.Equal(t, time.Duration(0), next())
	now := next() // b1
	a.Add(1, now, "b3")
	a.Add(2, now, "c2")
	for range 4 {
		next()
	}
	assert.Equal(t, []string{"a", "b1", "b2", "b3", "c", "c2"}, got)
}

// Against a sort of the same events, by instant then order added, with
// many of them at the instant of the event taken last, as a run adds them.
func TestTheAgendaAgreesWithASort(t *testing.T) {
	type ev struct {
		at time.Duration
		n  int
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var a agenda.Agenda[int]
	var added, got []ev
	now, n := time.Duration(0), 0
	add := func(at time.Duration) {
		a.Add(at, now, n)
		added = append(added, ev{at, n})
		n++
	}
	for range 5 {
		add(time.Duration(rng.IntN(10)))
	}
	for len(got) < len(added) {
		at, e := a.Next()
		now = at
		got = append(got, ev{at, e})
		for range rng.IntN(3) {
			if len(added) < 5000 {
				add(now + time.Duration(rng.IntN(3))*time.Duration(rng.IntN(5)))
			}
		}
	}
	want := slices.Clone(added)
	slices.SortStableFunc(want, func(x, y ev) int { return int(x.at - y.at) })
	assert.True(t, slices.IsSortedFunc(got, func(x, y ev) int { return int(x.at - y.at) }))
	assert.ElementsMatch(t, want, got)
	for i := 1; i < len(got); i++ {
		if got[i].at == got[i-1].at {
			assert.Less(t, got[i-1].n, got[i].n, "the order added, at instant %v", got[i].at)
		}
	}
}
