package fair

import (
	"fmt"
	"testing"
	"time"
)

// BenchmarkQueue pushes, pops and settles one item an op, its key one of
// n in turn, a few items of each queued.
func BenchmarkQueue(b *testing.B) {
	for _, n := range []int{1, 10, 1000} {
		b.Run(fmt.Sprint(n, "keys"), func(b *testing.B) {
			q, err := New[int, int](time.Millisecond)
			if err != nil {
				b.Fatal(err)
			}
			for i := range 4 * n {
				q.Push(i%n, i)
			}
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				q.Push(i%n, i)
				k, _, charge, _ := q.Pop()
				q.Done(k, charge, 100*time.Microsecond)
			}
		})
	}
}
