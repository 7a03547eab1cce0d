package meter

import "time"

// Waits is when the items still in a first-in, first-out queue came, oldest
// first, for the wait each had once it leaves: an agent's cell keeps one for
// its input queue. The zero Waits is empty.
type Waits struct {
	q []arrival
}

// arrival is n items that came into the queue at one instant.
type arrival struct {
	at time.Time
	n  int
}

// Arrived notes n items that came into the queue at instant at.
func (w *Waits) Arrived(at time.Time, n int) {
	if k := len(w.q); k > 0 && w.q[k-1].at.Equal(at) {
		w.q[k-1].n += n
		return
	}
	w.q = append(w.q, arrival{at: at, n: n})
}

// Left records in g the wait of the n oldest items, which left the queue at
// instant now.
func (w *Waits) Left(g *Gauges, n int, now time.Time) {
	for n > 0 && len(w.q) > 0 {
		a := &w.q[0]
		k := min(n, a.n)
		g.Waited(now.Sub(a.at), k)
		a.n -= k
		n -= k
		if a.n == 0 {
			w.q = w.q[1:]
		}
	}
	if len(w.q) == 0 {
		w.q = w.q[:0:0] // let the backing array go
	}
}
