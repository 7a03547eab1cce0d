package main

import (
	"runtime/metrics"
	"sync/atomic"
	"time"
)

// heapMetric is the memory the peak is taken of: the bytes of heap held by
// Go objects, live or not yet swept; memoryEvery how often it is sampled.
const (
	heapMetric  = "/memory/classes/heap/objects:bytes"
	memoryEvery = 10 * time.Millisecond
)

// peakMemory samples the Go heap and keeps the largest value seen. It is
// safe for concurrent use.
type peakMemory struct {
	peak atomic.Uint64
}

// sample reads the heap once and keeps it if it is the largest yet.
func (p *peakMemory) sample() {
	s := []metrics.Sample{{Name: heapMetric}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return
	}
	v := s[0].Value.Uint64()
	for old := p.peak.Load(); v > old && !p.peak.CompareAndSwap(old, v); old = p.peak.Load() {
	}
}

// watch samples the heap every memoryEvery until quit is closed, and once
// more then.
func (p *peakMemory) watch(quit <-chan struct{}) {
	tick := time.NewTicker(memoryEvery)
	defer tick.Stop()
	for {
		p.sample()
		select {
		case <-quit:
			p.sample()
			return
		case <-tick.C:
		}
	}
}

// mib returns b in mebibytes.
func mib(b uint64) float64 { return float64(b) / (1 << 20) }
