package budget

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// The worked examples of D'Hondt's method, starting from no seats.
func TestDHondtGivesItsKnownResults(t *testing.T) {
	for _, c := range []struct {
		name  string
		seats int
		votes []float64
		want  []int
	}{
		// Wikipedia, "D'Hondt method": 230,000 voters, 8 seats.
		{"four parties, eight seats", 8, []float64{100000, 80000, 30000, 20000}, []int{4, 3, 1, 0}},
		// Wikipedia, "D'Hondt method", the allocation table: 7 seats.
		{"five parties, seven seats", 7, []float64{340000, 280000, 160000, 60000, 15000}, []int{3, 3, 1, 0, 0}},
		// Wikipedia, "Highest averages method": 10 seats, where Sainte-Laguë
		// would give 4, 2, 2, 1, 1, 0.
		{"six parties, ten seats", 10, []float64{47000, 16000, 15900, 12000, 6000, 3100}, []int{5, 2, 2, 1, 0, 0}},
		// A party of a third of the votes and two of a sixth: D'Hondt
		// favours the largest on the remainder.
		{"largest party first", 4, []float64{2, 1, 1}, []int{2, 1, 1}},
		{"no seats", 0, []float64{5, 3}, []int{0, 0}},
		{"no parties", 3, nil, []int{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, dhondt(c.seats, c.votes))
		})
	}
}

func TestAheadComparesQuotientsThenSeats(t *testing.T) {
	for _, c := range []struct {
		v    float64
		s    int
		w    float64
		u    int
		want bool
	}{
		{10, 1, 4, 0, true},  // 5 against 4
		{4, 0, 10, 1, false}, // 4 against 5
		{3, 0, 6, 1, true},   // 3 against 3, with fewer seats
		{6, 1, 3, 0, false},  // 3 against 3, with more seats
		{2, 0, 2, 0, false},  // the same: the earlier party stays ahead
	} {
		assert.Equal(t, c.want, ahead(c.v, c.s, c.w, c.u), "%v/%d against %v/%d", c.v, c.s+1, c.w, c.u+1)
	}
}
