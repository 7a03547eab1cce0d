package main

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/big"
	"time"
)

// job is one letter to Santa: one factorisation of the workload's prime.
type job struct {
	id int       // position in the arrival sequence, from 0
	at time.Time // when it arrived
}

// workload is the work every job does: factorising prime by trial
// division, which keeps one core busy for about took.
type workload struct {
	prime uint64
	took  time.Duration // the fastest of a few timed runs on one core
}

// do factorises the workload's prime, and checks that the only factor found
// is the prime itself. It returns ctx.Err() if ctx ends first.
func (w workload) do(ctx context.Context) error {
	f, err := factor(ctx, w.prime)
	if err != nil {
		return err
	}
	if len(f) != 1 || f[0] != w.prime {
		return fmt.Errorf("factorising the prime %d gave %v", w.prime, f)
	}
	return nil
}

// maxFactor is the largest number factor takes: below it, d*d cannot
// overflow for any trial divisor d up to its square root.
const maxFactor = 1 << 62

// checkEvery is how many trial divisions factor makes between two looks at
// its context: a few hundred microseconds of work.
const checkEvery = 1 << 14

// factor returns the prime factors of n (at most maxFactor) in increasing
// order, found by trial division by 2 and every odd number up to the square
// root of what is left. For a prime n that is about sqrt(n)/2 divisions. It
// returns ctx.Err() if ctx ends first.
func factor(ctx context.Context, n uint64) ([]uint64, error) {
	if n < 2 || n > maxFactor {
		return nil, fmt.Errorf("factor: %d is out of range [2, 2^62]", n)
	}
	var f []uint64
	for n%2 == 0 {
		f = append(f, 2)
		n /= 2
	}
	for d, i := uint64(3), 0; d*d <= n; d, i = d+2, i+1 {
		if i%checkEvery == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
		for n%d == 0 {
			f = append(f, d)
			n /= d
		}
	}
	if n > 1 {
		f = append(f, n)
	}
	return f, nil
}

// nextPrime returns the smallest prime at or above n.
func nextPrime(n uint64) uint64 {
	if n <= 2 {
		return 2
	}
	if n%2 == 0 {
		n++
	}
	var b big.Int
	for ; !b.SetUint64(n).ProbablyPrime(0); n += 2 { // exact below 2^64
	}
	return n
}

// probeSize is about the size of the prime calibrate times first: half a
// million divisions, a few milliseconds.
const probeSize = 1 << 40

// errTooBig is returned by calibrate when the job asked for would need a
// prime above maxFactor.
var errTooBig = errors.New("no prime small enough takes that long here")

// calibrate finds the prime whose factorisation takes about target on one
// core of this machine, times it, and returns the workload. It times each
// run a few times and keeps the fastest, so a busy moment does not make
// the job look slower than it is.
func calibrate(ctx context.Context, target time.Duration) (workload, error) {
	probe := nextPrime(probeSize)
	t, err := fastest(ctx, probe, 5)
	if err != nil {
		return workload{}, err
	}
	perDivision := float64(t) / (math.Sqrt(float64(probe)) / 2)
	root := 2 * float64(target) / perDivision
	if root*root >= maxFactor {
		return workload{}, fmt.Errorf("%v: %w", target, errTooBig)
	}
	p := nextPrime(max(uint64(root*root), 3))
	took, err := fastest(ctx, p, 3)
	return workload{prime: p, took: took}, err
}

// fastest returns the shortest of n timed factorisations of p.
func fastest(ctx context.Context, p uint64, n int) (time.Duration, error) {
	best := time.Duration(math.MaxInt64)
	for range n {
		start := time.Now()
		if err := (workload{prime: p}).do(ctx); err != nil {
			return 0, err
		}
		best = min(best, time.Since(start))
	}
	return best, nil
}
