package parallel

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func popAll(q fifo[int]) []int {
	var out []int
	for q.len() > 0 {
		var v int
		v, q = q.pop()
		out = append(out, v)
	}
	return out
}

func TestFifoKeepsOrder(t *testing.T) {
	var q fifo[int]
	assert.Zero(t, q.len())
	q = q.push(1).push(2)
	v, q := q.pop()
	assert.Equal(t, 1, v)
	q = q.push(3).push(4)
	assert.Equal(t, 3, q.len())
	assert.Equal(t, []int{2, 3, 4}, popAll(q))
}

func TestFifoIsAValue(t *testing.T) {
	base := fifo[int]{}.push(1).push(2)
	_, popped := base.pop()
	left := popped.push(10)
	right := popped.push(20)
	assert.Equal(t, []int{1, 2}, popAll(base))
	assert.Equal(t, []int{2, 10}, popAll(left))
	assert.Equal(t, []int{2, 20}, popAll(right))
	assert.Equal(t, []int{2}, popAll(popped))
}
