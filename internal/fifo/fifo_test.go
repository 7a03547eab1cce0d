package fifo

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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

func TestFifoVersionsPushedFromOneStateStayApart(t *testing.T) {
	var q Queue[int]
	for i := range 100 {
		q = q.Push(i)
	}
	for range 60 {
		_, q = q.Pop()
	}
	a := q.Push(1000)
	b := q.Push(2000) // q's end is taken by a: b copies
	a2 := a.Push(1001)
	assert.Equal(t, 40, q.Len())
	assert.Equal(t, 1000, a.At(40))
	assert.Equal(t, 2000, b.At(40))
	assert.Equal(t, 1001, a2.At(41))
	assert.Equal(t, 41, a.Len())
	assert.Equal(t, seq(60, 100), popAll(q))
}

func TestFifoPushAllIsPushForEach(t *testing.T) {
	var q Queue[int]
	q = q.PushAll(seq(0, 50)...)
	for range 40 {
		_, q = q.Pop()
	}
	a := q.PushAll(100, 101, 102)
	b := q.PushAll(200) // q's end is taken by a: b copies
	c := q.PushAll()
	assert.Equal(t, append(seq(40, 50), 100, 101, 102), popAll(a))
	assert.Equal(t, append(seq(40, 50), 200), popAll(b))
	assert.Equal(t, seq(40, 50), popAll(c))
	assert.Equal(t, seq(40, 50), popAll(q))
}

func TestFifoInsertKeepsTheOriginal(t *testing.T) {
	q := Queue[int]{}.Push(1).Push(2).Push(4)
	ins := q.Insert(2, 3)
	assert.Equal(t, []int{1, 2, 3, 4}, ins.Values())
	assert.Equal(t, []int{1, 2, 4}, q.Values())
	assert.Equal(t, []int{1, 2, 4, 5}, q.Insert(3, 5).Values())
	assert.Equal(t, []int{1, 2, 4}, q.Values())
	assert.Panics(t, func() { q.At(3) })
	assert.Panics(t, func() { q.Insert(4, 5) })
	assert.Nil(t, Queue[int]{}.Values())
}

func TestFifoPushesWithoutAllocatingWhenUsedAsAQueue(t *testing.T) {
	q := Queue[int]{}.Push(0)
	allocs := testing.AllocsPerRun(1000, func() {
		q = q.Push(1)
		_, q = q.Pop()
	})
	assert.Less(t, allocs, 0.1)
}

func seq(from, to int) []int {
	var out []int
	for i := from; i < to; i++ {
		out = append(out, i)
	}
	return out
}

func TestFifoInsertsSeveralAndTakesSeveral(t *testing.T) {
	q := Queue[int]{}.Push(1).Push(5)
	ins := q.Insert(1, 2, 3, 4)
	assert.Equal(t, []int{1, 2, 3, 4, 5}, ins.Values())
	assert.Equal(t, []int{1, 5, 6, 7}, q.Insert(2, 6, 7).Values())
	assert.Equal(t, []int{1, 5}, q.Values())

	got, rest := ins.Take(3)
	assert.Equal(t, []int{1, 2, 3}, got)
	assert.Equal(t, []int{4, 5}, rest.Values())
	assert.Equal(t, 3, cap(got), "a view that ends where it ends")
	more := rest.Push(6).Push(7)
	assert.Equal(t, []int{1, 2, 3}, got, "pushes leave what was taken as it was")
	assert.Equal(t, []int{1, 2, 3, 4, 5}, ins.Values())
	grown := append(got, 42)
	assert.Equal(t, []int{4, 5, 6, 7}, more.Values(), "an append to what was taken copies it")
	assert.Equal(t, []int{1, 2, 3, 42}, grown)
	none, same := rest.Take(0)
	assert.Empty(t, none)
	assert.Equal(t, rest, same)
	assert.Panics(t, func() { rest.Take(3) })
	assert.Panics(t, func() { rest.Take(-1) })
}

func TestDropLeavesTheQueueItWasCalledOnAndLetsGoWhenEmpty(t *testing.T) {
	q := Queue[int]{}.PushAll(1, 2, 3)
	d := q.Drop(2)
	if d.Len() != 1 || d.At(0) != 3 || q.Len() != 3 || q.At(0) != 1 {
		t.Fatalf("Drop(2) of %v gave %v and left %v", []int{1, 2, 3}, d.Values(), q.Values())
	}
	if e := q.Drop(3); e.Len() != 0 || e.s != nil {
		t.Fatalf("Drop of all left %d values and array %v", e.Len(), e.s)
	}
}

func TestAPushCopiesWhatIsLeftOnlyWhenTheArrayIsFullAndMostlyPopped(t *testing.T) {
	q := Queue[int]{}
	for i := range 40 {
		q = q.Push(i)
	}
	room := cap(q.s.items) - len(q.s.items)
	assert.Positive(t, room)
	q = q.Drop(36)
	pushed := q.Push(40)
	assert.Same(t, q.s, pushed.s, "with room left, it pushes in place")
	for i := 41; i < 40+room; i++ {
		pushed = pushed.Push(i)
	}
	assert.Same(t, q.s, pushed.s)
	full := pushed.Push(99)
	assert.NotSame(t, q.s, full.s, "full and mostly popped: what is left goes to a new array")
	assert.Equal(t, 0, full.head)
	assert.Equal(t, append(pushed.Values(), 99), full.Values())
	assert.Equal(t, []int{36, 37, 38, 39}, q.Values(), "the versions before stay as they were")
}

func TestASmallQueueMostlyPoppedMovesToANewArrayRatherThanGrowing(t *testing.T) {
	q := Queue[int]{}
	for i := range minArray {
		q = q.Push(i)
	}
	require.Equal(t, minArray, cap(q.s.items), "a first array of the least room")
	for range minArray/2 + 1 {
		_, q = q.Pop()
	}
	full := q.Push(99)
	assert.NotSame(t, q.s, full.s)
	assert.Equal(t, minArray, cap(full.s.items), "what is left, on an array no larger")
	assert.Equal(t, append(q.Values(), 99), full.Values())
}
