package main

import (
	"context"
	"fmt"
	"io"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/buffer"
	"github.com/evolvekit/evolve/compose"
	"github.com/evolvekit/evolve/durable"
	"github.com/evolvekit/evolve/parallel"
	"github.com/evolvekit/evolve/rate"
)

// loader loads records 1 to n from the API into batch files through a chain
// of agents: rate, parallel GETs, buffer (see the package doc). A record that
// fails for good goes to the dead letters: its last request's error, or its
// batch file's.
type loader struct {
	n        int
	rate     float64
	parallel int
	batch    int
	retry    parallel.Retry

	f      *fetcher
	out    *files
	loaded atomic.Int64 // records in files written
	dead   deadLetters

	retried, granted int  // retries made, and passes the rate agent granted them
	share            bool // other processes loaded records of the same queue
}

// deadLetters keeps the chain's dead letters. It is safe for concurrent
// use.
type deadLetters struct {
	mu   sync.Mutex
	list []agent.DeadLetter
}

// add keeps d.
func (d *deadLetters) add(l agent.DeadLetter) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.list = append(d.list, l)
}

// byID returns the records that went to the dead letters, by id, with
// their errors.
func (d *deadLetters) byID() map[int]agent.DeadLetter {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := make(map[int]agent.DeadLetter, len(d.list))
	for _, l := range d.list {
		for _, id := range deadIDs(l.Item) {
			out[id] = l
		}
	}
	return out
}

// deadIDs returns the ids of the records a dead letter's item holds.
func deadIDs(item any) []int {
	switch v := item.(type) {
	case int: // a request that failed for good
		return []int{v}
	case record: // a record whose batch file could not be written
		return []int{v.ID}
	case durable.Item[int]: // the same, from a durable queue
		return []int{v.Value}
	case durable.Item[record]:
		return []int{v.Value.ID}
	case []durable.Item[record]:
		ids := make([]int, len(v))
		for i, it := range v {
			ids[i] = it.Value.ID
		}
		return ids
	}
	return nil
}

// loaderBurst returns the rate agent's burst at rate: a quarter of the
// API's. A burst of 1 would lose for good every moment an id waits for a
// GET slot or a timer fires late, and fall behind the rate by a few per
// cent; a quarter absorbs those, and leaves requests that reach the API up
// to (burst(rate)-loaderBurst(rate))/rate late, 150 ms, tokens there.
func loaderBurst(rate float64) int { return max(1, burst(rate)/4) }

// chain returns the loader's stages, linked: the rate agent, the parallel
// agent that makes the GETs, the buffer agent that writes the files; or the
// error of the first whose configuration is refused.
//
// The parallel agent's input queue holds a single id: ids waiting in a
// deeper one would go out together once a GET slot frees after a slow
// moment, a burst the API would answer with 429s; with one place, a stall
// holds them back in the rate agent, whose small bucket bounds the burst.
// Results go on as they finish (Unordered), not held up by a retry.
func (l *loader) chain() (agent.Stage[int, []record], error) {
	limit, err := rate.Stage(rate.Config[int]{Name: "rate", Rate: l.rate, Burst: loaderBurst(l.rate)})
	if err != nil {
		return agent.Stage[int, []record]{}, err
	}
	fetch, err := parallel.Stage(parallel.Config{Name: "fetch", Limit: l.parallel, Queue: 1, Unordered: true,
		Timeout: requestTimeout, Retry: l.retry}, l.f.fetch)
	if err != nil {
		return agent.Stage[int, []record]{}, err
	}
	write, err := buffer.Stage(buffer.Config[record]{Name: "files", Size: l.batch}, l.out.write)
	if err != nil {
		return agent.Stage[int, []record]{}, err
	}
	return compose.Pipe3(limit, fetch, write), nil
}

// load posts every id to the chain and waits until the last batch is
// written. It returns the chain's error (an *agent.DeadLettersError if
// records failed for good), or ctx.Err() if ctx ends first, having stopped
// the chain.
func (l *loader) load(ctx context.Context, rt *agent.Runtime) error {
	stages, err := l.chain()
	if err != nil {
		return err
	}
	c, err := compose.Start(rt, stages, func(b []record) { l.loaded.Add(int64(len(b))) },
		compose.WithName("warehouse"), compose.WithDeadLetters(l.dead.add))
	if err != nil {
		return err
	}
	for id := 1; id <= l.n; id++ {
		if err := c.Post(ctx, id); err != nil {
			return stop(c, err)
		}
	}
	c.Close()
	err = c.Wait(ctx)
	if ctx.Err() != nil {
		return stop(c, err)
	}
	l.count(c.Status)
	return err
}

// count reads the retries made and the passes granted for them from the
// chain's final status.
func (l *loader) count(status func(context.Context) (compose.Status, error)) {
	st, err := status(context.Background())
	if err != nil {
		return
	}
	for _, s := range st.Agents {
		switch v := s.Detail.(type) {
		case parallel.Status:
			l.retried = v.Retried
		case rate.Status:
			l.granted = v.Granted
		}
	}
}

// stopTimeout bounds the wait for the chain's goroutines when it is stopped
// early; GETs and backoffs end as soon as their context does.
const stopTimeout = 10 * time.Second

// stop stops c, cancelling the GETs under way, and returns err.
func stop(c agent.Handle[int, compose.Status], err error) error {
	ctx, cancel := context.WithTimeout(context.Background(), stopTimeout)
	defer cancel()
	if serr := c.Stop(ctx); serr != nil {
		return fmt.Errorf("%w (stopping: %v)", err, serr)
	}
	return err
}

// watch writes a progress line to w every period until quit is closed.
func (l *loader) watch(w io.Writer, start time.Time, period time.Duration, quit <-chan struct{}) {
	tick := time.NewTicker(period)
	defer tick.Stop()
	for {
		select {
		case <-quit:
			return
		case <-tick.C:
		}
		fmt.Fprintf(w, "warehouse: %v: %d%s records loaded, %d fetched in %d requests, %d 429s\n",
			time.Since(start).Round(100*time.Millisecond), l.loaded.Load(), ofN(l.n), l.f.fetched.Load(),
			l.f.requests.Load(), l.f.tooMany.Load())
	}
}

// ofN returns " of n", or "" for a joiner, which does not know n (0).
func ofN(n int) string { return map[bool]string{true: fmt.Sprintf(" of %d", n)}[n > 0] }

// background runs each function in a goroutine of its own until the
// returned stop is called, which closes their quit channel and waits for
// them.
func background(fs ...func(quit <-chan struct{})) (stop func()) {
	quit := make(chan struct{})
	var wg sync.WaitGroup
	for _, f := range fs {
		wg.Go(func() { f(quit) })
	}
	return func() {
		close(quit)
		wg.Wait()
	}
}

// heapMetric is the memory the peak is taken of: the bytes of heap held by
// Go objects, live or not yet swept; memoryEvery how often it is sampled.
const (
	heapMetric  = "/memory/classes/heap/objects:bytes"
	memoryEvery = 10 * time.Millisecond
)

// peakMemory samples the Go heap and keeps the largest value seen. It is
// safe for concurrent use.
type peakMemory struct{ peak atomic.Uint64 }

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
