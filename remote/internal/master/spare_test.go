package master

import (
	"errors"
	"testing"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/remote/internal/book"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSpareGivesBackOutcomesCleared(t *testing.T) {
	s := NewSpare[int]()
	out := s.get(3)
	out = append(out, book.Outcome[int]{Item: 1, Value: 7}, book.Outcome[int]{Item: 2, Err: errors.New("x"), Steps: []string{"a"}})
	s.Put(agent.Event[book.Outcomes[int]]{Value: book.Outcomes[int]{Outcomes: out}})
	again := s.get(2)
	require.Equal(t, 0, len(again))
	require.Equal(t, 3, cap(again))
	assert.Equal(t, &out[0], &again[:1][0], "the same memory")
	for _, o := range again[:cap(again)] {
		assert.Zero(t, o)
	}
	assert.Equal(t, 5, cap(s.get(5)), "nothing kept: a new slice")
}

func TestSpareKeepsOnlyOutcomesOfAFewSlices(t *testing.T) {
	s := NewSpare[int]()
	s.Put(agent.Event[book.Asked]{})
	s.Put(agent.Event[book.Outcomes[int]]{Value: book.Outcomes[int]{Outcomes: make([]book.Outcome[int], spareMost+1)}})
	for range spares + 2 {
		s.Put(agent.Event[book.Outcomes[int]]{Value: book.Outcomes[int]{Outcomes: make([]book.Outcome[int], 0, 8)}})
	}
	for range spares {
		assert.Equal(t, 8, cap(s.get(1)))
	}
	assert.Equal(t, 1, cap(s.get(1)))
	var none *Spare[int]
	assert.Equal(t, 2, cap(none.get(2)))
}
