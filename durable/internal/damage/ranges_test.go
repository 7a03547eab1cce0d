package damage

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestRanges(t *testing.T) {
	assert.Equal(t, Ranges{{1, 3}, {5, 5}, {7, 8}}, Of([]uint64{8, 2, 1, 3, 5, 7, 2}))
	assert.Nil(t, Of(nil))
	assert.Equal(t, Ranges{{1, 2}, {4, 9}}, Held(1, 9, []uint64{3}))
	assert.Equal(t, Ranges{}, Held(5, 4, nil), "an empty stream")
	for _, c := range []struct {
		r, o, minus, union Ranges
	}{
		{Ranges{{1, 10}}, Ranges{{3, 4}, {8, 12}}, Ranges{{1, 2}, {5, 7}}, Ranges{{1, 12}}},
		{Ranges{{1, 10}}, Ranges{{1, 10}}, Ranges{}, Ranges{{1, 10}}},
		{Ranges{{1, 2}, {6, 9}}, Ranges{{3, 5}}, Ranges{{1, 2}, {6, 9}}, Ranges{{1, 9}}},
		{Ranges{{5, 9}}, Ranges{{1, 2}, {5, 5}, {9, 20}}, Ranges{{6, 8}}, Ranges{{1, 2}, {5, 20}}},
		{Ranges{{1, 1000}, {1006, 2000}}, Ranges{{1, 1005}}, Ranges{{1006, 2000}}, Ranges{{1, 2000}}},
		{Ranges{}, Ranges{{1, 2}}, Ranges{}, Ranges{{1, 2}}},
	} {
		assert.Equal(t, c.minus, c.r.Minus(c.o), "%v minus %v", c.r, c.o)
		assert.Equal(t, c.union, c.r.Union(c.o), "%v union %v", c.r, c.o)
	}
	assert.Equal(t, uint64(7), Ranges{{1, 3}, {10, 13}}.Len())
	assert.Equal(t, "1-3, 5, 7-8", Of([]uint64{1, 2, 3, 5, 7, 8}).String())
	many := Ranges{}
	for i := range uint64(10) {
		many = append(many, Range{10 * i, 10*i + 1})
	}
	assert.Equal(t, "0-1, 10-11, 20-21, 30-31, 40-41, 50-51, 60-61, 70-71, and 2 ranges more", many.String())
}
