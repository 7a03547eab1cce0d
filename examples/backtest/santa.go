package main

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/evolvekit/evolve/adaptive"
)

// Santa is the controller of the adaptive mailbox that package adaptive's
// agent descends from, kept as a baseline to compare against, flaws and all.
//
// On every completion it takes in flight / elapsed as a throughput sample,
// where elapsed is the item's whole time in the agent, queue wait included,
// and folds it into the estimate for the current limit with a learning
// rate. Then, with probability Explore, it steps one up or one down at
// random; otherwise it moves to a neighbouring limit whose estimate beats
// the current one, if any.
//
// Its flaws are the ones [adaptive.Hill] fixes: it explores whether or not
// the limit is what holds throughput back, so under light load it wanders,
// and because queue wait counts as if it were service time, a lower limit
// (where items queue longer) looks worse than it is, so it creeps upward;
// its estimates never age, so a change of capacity is noticed only as fast
// as the learning rate wears old samples down; and deciding on every
// completion makes it chase noise.
//
// Santa's zero value is ready to use, with the defaults below.
type Santa struct {
	// Rate is the learning rate; 0 means 0.1.
	Rate float64
	// Explore is the probability of a random step; 0 means 0.05.
	Explore float64

	est []float64 // by limit; 0 for a limit never measured; copied on change
	cur float64   // the estimate at the limit now
}

// Name returns "santa".
func (Santa) Name() string { return "santa" }

// View reports the phase "explore" and the estimate at the current limit.
func (s Santa) View() adaptive.View { return adaptive.View{Phase: "explore", Throughput: s.cur} }

// String reports the settings, as the sweep prints them.
func (s Santa) String() string {
	return fmt.Sprintf("rate=%v explore=%v", or(s.Rate, 0.1), or(s.Explore, 0.05))
}

// Validate reports a rate or a probability out of range.
func (s Santa) Validate() error {
	if !(s.Rate >= 0 && s.Rate <= 1) || !(s.Explore >= 0 && s.Explore <= 1) {
		return invalid("santa: rate and explore must be between 0 and 1, got %v and %v", s.Rate, s.Explore)
	}
	return nil
}

// Observe learns from s and picks the next limit.
func (s Santa) Observe(smp adaptive.Sample, r *rand.Rand) (adaptive.Controller, int) {
	l := smp.Limit
	elapsed := (smp.Wait + smp.Service).Seconds()
	if elapsed <= 0 {
		elapsed = time.Nanosecond.Seconds()
	}
	s = s.learn(l, float64(smp.InFlight)/elapsed)
	if r.Float64() < or(s.Explore, 0.05) {
		return s, clamp(l+1-2*r.IntN(2), smp.Min, smp.Max)
	}
	next := l
	for _, n := range []int{l - 1, l + 1} {
		if n >= smp.Min && n <= smp.Max && s.at(n) > s.at(next) {
			next = n
		}
	}
	return s, next
}

// learn folds x into the estimate for limit l.
func (s Santa) learn(l int, x float64) Santa {
	est := slices.Clone(s.est)
	if l >= len(est) {
		est = append(est, make([]float64, l+1-len(est))...)
	}
	if est[l] == 0 {
		est[l] = x
	} else {
		est[l] += or(s.Rate, 0.1) * (x - est[l])
	}
	s.est, s.cur = est, est[l]
	return s
}

// at returns the estimate for limit l, 0 if never measured.
func (s Santa) at(l int) float64 {
	if l < 0 || l >= len(s.est) {
		return 0
	}
	return s.est[l]
}
