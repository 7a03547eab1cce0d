package fifo_test

import (
	"math/rand/v2"
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

func TestADequeWrappingAroundItsRingMatchesASlice(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var d fifo.Deque[int]
	var model []int
	for step := range 20000 {
		switch op := rng.IntN(10); {
		case op < 4:
			d.PushBack(step)
			model = append(model, step)
		case op < 7 && len(model) > 0:
			assert.Equal(t, model[0], d.PopFront(), "step %d", step)
			model = model[1:]
		case op < 8:
			i := rng.IntN(len(model) + 1)
			d.Insert(i, -step)
			model = append(model[:i], append([]int{-step}, model[i:]...)...)
		case op < 9 && len(model) > 0:
			i := rng.IntN(len(model))
			d.Remove(i)
			model = append(model[:i], model[i+1:]...)
		case len(model) > 0:
			d.DropFront()
			model = model[1:]
		}
		if step%97 == 0 {
			d = d.Clone() // go on with the clone: it must hold the same
		}
		if assert.Equal(t, len(model), d.Len(), "step %d", step) && step%13 == 0 {
			for k, v := range model {
				if *d.At(k) != v {
					t.Fatalf("step %d: at %d: %d, want %d", step, k, *d.At(k), v)
				}
			}
		}
	}
	assert.Panics(t, func() { d.At(d.Len()) })
	d.Reset()
	assert.Panics(t, func() { d.DropFront() })
}
