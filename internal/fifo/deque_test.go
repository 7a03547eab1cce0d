package fifo_test

import (
	"testing"

	"github.com/evolvekit/evolve/internal/fifo"
	"github.com/stretchr/testify/assert"
)

func TestADequeKeepsItsOrderThroughPushesPopsAndInserts(t *testing.T) {
	var d fifo.Deque[int]
	var model []int
	for i := range 100 {
		d.PushBack(i)
		model = append(model, i)
		if i%3 == 0 {
			assert.Equal(t, model[0], d.PopFront())
			model = model[1:]
		}
		if i%7 == 0 && d.Len() > 2 {
			d.Insert(1, -i)
			model = append(model[:1], append([]int{-i}, model[1:]...)...)
		}
		if i%11 == 0 && d.Len() > 3 {
			d.Remove(2)
			model = append(model[:2], model[3:]...)
		}
		if i%13 == 0 && d.Len() > 0 {
			d.Insert(0, 1000+i)
			model = append([]int{1000 + i}, model...)
		}
		got := make([]int, d.Len())
		for k := range got {
			got[k] = *d.At(k)
		}
		assert.Equal(t, model, got, "after step %d", i)
	}
	c := d.Clone()
	d.Reset()
	assert.Zero(t, d.Len())
	assert.Equal(t, len(model), c.Len(), "the clone shares nothing")
}
