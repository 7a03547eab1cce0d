package main

import (
	"math/rand/v2"
	"time"
)

// batch is the jobs that arrive at one instant: n of them, at offset at
// from the start of a run.
type batch struct {
	at time.Duration
	n  int
}

// arrivals returns the batches of a run: one every interval from the start
// until duration, each of 0 to maxBatch jobs, every size as likely as any
// other, drawn from a PCG seeded with seed. The same arguments give the same
// batches, so every strategy sees the same letters at the same instants.
func arrivals(seed uint64, duration, interval time.Duration, maxBatch int) []batch {
	r := rand.New(rand.NewPCG(seed, 0))
	var bs []batch
	for at := time.Duration(0); at < duration; at += interval {
		bs = append(bs, batch{at: at, n: r.IntN(maxBatch + 1)})
	}
	return bs
}

// total returns the number of jobs in bs.
func total(bs []batch) int {
	n := 0
	for _, b := range bs {
		n += b.n
	}
	return n
}
