package fifo

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func popAll(q Queue[int]) []int {
	var out []int
	for q.Len() > 0 {
		var v int
		v, q = q.Pop()
		out = append(out, v)
	}
	return out
}

func TestFifoKeepsOrder(t *testing.T) {
	var q Queue[int]
	assert.Zero(t, q.Len())
	q = q.Push(1).Push(2)
	v, q := q.Pop()
	assert.Equal(t, 1, v)
	q = q.Push(3).Push(4)
	assert.Equal(t, 3, q.Len())
	assert.Equal(t, []int{2, 3, 4}, popAll(q))
}

func TestFifoIsAValue(t *testing.T) {
	base := Queue[int]{}.Push(1).Push(2)
	_, popped := base.Pop()
	left := popped.Push(10)
	right := popped.Push(20)
	assert.Equal(t, []int{1, 2}, popAll(base))
	assert.Equal(t, []int{2, 10}, popAll(left))
	assert.Equal(t, []int{2, 20}, popAll(right))
	assert.Equal(t, []int{2}, popAll(popped))
}
