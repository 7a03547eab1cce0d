package budget

import (
	"fmt"
	"time"
)

// Demand is what one stage asks of a budget: Queued is the number of items
// waiting for it, Service the mean time one worker spends on one item, or 0
// when that is not known yet.
type Demand struct {
	Queued  int
	Service time.Duration
}

// Allocate shares n workers among stages by the highest-averages rule
// (Jefferson, D'Hondt), each stage weighed by its queue times its service
// time. Every stage keeps one worker of its own; the others make a pool
// that D'Hondt's rule shares out one worker at a time, each to the stage
// whose weight / (w + 1) is the highest, w counting the workers it has had
// from the pool so far. As a stage's own worker is its first, that is its
// weight divided by its workers: the time it would take to work through
// its queue. A stage whose Service is 0 is weighed with the mean Service
// of those that know theirs; when none does, every stage is weighed by its
// queue alone. Ties go to the stage with fewer workers, then to the
// earlier one, so equal demands (none at all, say) split n as evenly as it
// goes, the earlier stages taking the remainder.
//
// It returns how many workers each stage gets: at least 1 each, n in all
// (none for no stages). It panics if n is below len(stages). It costs
// O(n × len(stages)).
func Allocate(n int, stages []Demand) []int {
	if n < len(stages) {
		panic(fmt.Sprintf("budget: %d workers cannot give each of %d stages one", n, len(stages)))
	}
	workers := dhondt(n-len(stages), weights(stages))
	for i := range workers {
		workers[i]++
	}
	return workers
}

// weights returns each stage's queue times its service time, an unknown
// service time taken as the mean of those known (or 1 when none is).
func weights(stages []Demand) []float64 {
	sum, known := 0.0, 0
	for _, d := range stages {
		if d.Service > 0 {
			sum += float64(d.Service)
			known++
		}
	}
	prior := 1.0
	if known > 0 {
		prior = sum / float64(known)
	}
	w := make([]float64, len(stages))
	for i, d := range stages {
		s := float64(d.Service)
		if d.Service <= 0 {
			s = prior
		}
		w[i] = float64(max(d.Queued, 0)) * s
	}
	return w
}

// dhondt shares seats among parties with the votes given by D'Hondt's
// rule: each seat goes to the party whose votes / (seats + 1) is the
// highest, ties to the one with fewer seats, then to the earlier one.
func dhondt(seats int, votes []float64) []int {
	won := make([]int, len(votes))
	if len(votes) == 0 {
		return won
	}
	for range seats {
		best := 0
		for i := 1; i < len(votes); i++ {
			if ahead(votes[i], won[i], votes[best], won[best]) {
				best = i
			}
		}
		won[best]++
	}
	return won
}

// ahead reports whether the next quotient of a party with v votes and s
// seats, v/(s+1), comes before that of one with w votes and t seats: it is
// higher, or equal with fewer seats. It compares the cross products, which
// is exact where the quotients would round.
func ahead(v float64, s int, w float64, t int) bool {
	l, r := v*float64(t+1), w*float64(s+1)
	return l > r || l == r && s < t
}
