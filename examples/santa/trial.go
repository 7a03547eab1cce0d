package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/internal/promserve"
)

// sample is a strategy's state at one instant of its run.
type sample struct {
	at      time.Duration // since the start of the run
	queue   int           // jobs arrived and not yet started
	running int           // jobs running: the parallelism
	limit   int           // the most jobs allowed to run at once; 0 for none
}

// outcome is what one strategy's run measured.
type outcome struct {
	s        strategy
	duration time.Duration   // how long jobs kept arriving
	arrived  int             // jobs that arrived
	done     int             // jobs done
	times    []time.Duration // each job done's time from arrival to completion
	peak     int             // the largest queue, just after a batch arrived
	samples  []sample        // taken every sampling period, and once at the end
	end      time.Duration   // when the run ended: at duration, or when the last job returned
	busy     time.Duration   // the time jobs ran, added up
}

// trial runs one strategy on the arrival sequence: a postman brings each
// batch at its instant, a sampler records the queue and the parallelism, and
// progress lines go to log.
type trial struct {
	s        strategy
	plan     []batch
	duration time.Duration
	every    time.Duration // sampling period
	progress int           // samples between two progress lines
	log      io.Writer
	live     *promserve.Server // shows the strategy's agent on its live page; nil for none

	start   time.Time
	m       *meter
	r       runner
	box     *mailbox
	arrived atomic.Int64
	peak    int // written by the postman only
	limit   int // the last limit read, written by the sampler only
}

// stopTimeout bounds the wait for a strategy's jobs when it is stopped early;
// every job looks at its context every few hundred microseconds.
const stopTimeout = 10 * time.Second

// run runs the trial to its end: every job that arrives is done. It returns
// ctx.Err() if ctx ends first, having cancelled the jobs still running.
func (t *trial) run(ctx context.Context, rt *agent.Runtime, w workload) (outcome, error) {
	t.m = newMeter(total(t.plan))
	r, err := t.s.start(ctx, rt, w, t.m)
	if err != nil {
		return outcome{}, err
	}
	t.r, t.box = r, newMailbox(r)
	if p, ok := r.(interface{ watch(*promserve.Server) }); ok {
		p.watch(t.live)
	}
	defer func() {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), stopTimeout)
		defer cancel()
		_ = r.stop(sctx) // after finish there is nothing left to stop
	}()
	fmt.Fprintf(t.log, "santa: %s: %s, jobs arriving for %v\n", t.s.name, t.s.about, t.duration)
	t.start = time.Now()

	var wg sync.WaitGroup
	quit := make(chan struct{})
	var samples []sample
	wg.Go(func() { samples = t.watch(ctx, quit) })
	// The postman stops if the courier cannot post, and the courier once
	// the postman has closed the mailbox and it is empty.
	pctx, cancel := context.WithCancel(ctx)
	defer cancel()
	courier := make(chan error, 1)
	wg.Go(func() {
		err := t.box.courier(pctx)
		if err != nil {
			cancel()
		}
		courier <- err
	})
	perr := t.postman(pctx)
	t.box.close()
	if err = cmp.Or(<-courier, perr); err == nil {
		fmt.Fprintf(t.log, "santa: %s: arrivals over; %d jobs waiting, %d running\n", t.s.name, t.queue(), t.m.running())
		err = r.finish(ctx)
	}
	end := time.Since(t.start)
	close(quit)
	wg.Wait()
	if err != nil {
		return outcome{}, fmt.Errorf("%s: %w", t.s.name, err)
	}
	samples = append(samples, t.sample(ctx, end))
	fmt.Fprintf(t.log, "santa: %s: all %d jobs done after %v\n", t.s.name, t.m.done.Load(), end.Round(time.Millisecond))
	return outcome{s: t.s, duration: t.duration, arrived: int(t.arrived.Load()), done: int(t.m.done.Load()),
		times: t.m.times(), peak: t.peak, samples: samples, end: end, busy: time.Duration(t.m.busy.Load())}, nil
}

// postman brings each batch at its instant, then waits until the end of the
// arrivals. After each batch it notes the queue: it only grows when a batch
// arrives, so its largest value is seen then.
func (t *trial) postman(ctx context.Context) error {
	id := 0
	for _, b := range t.plan {
		if err := t.until(ctx, b.at); err != nil {
			return err
		}
		at := t.start.Add(b.at)
		js := make([]job, b.n)
		for i := range js {
			js[i] = job{id: id, at: at}
			id++
		}
		t.arrived.Add(int64(b.n))
		t.box.deliver(js)
		t.peak = max(t.peak, t.queue())
	}
	return t.until(ctx, t.duration)
}

// until waits until offset d from the start, or until ctx ends.
func (t *trial) until(ctx context.Context, d time.Duration) error {
	wait := time.Until(t.start.Add(d))
	if wait <= 0 {
		return ctx.Err()
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// queue returns the jobs arrived and not yet started.
func (t *trial) queue() int { return int(t.arrived.Load() - t.m.started.Load()) }

// watch samples the run every sampling period until quit is closed, writing
// a progress line every so many samples, and returns the samples.
func (t *trial) watch(ctx context.Context, quit <-chan struct{}) []sample {
	tick := time.NewTicker(t.every)
	defer tick.Stop()
	samples := []sample{t.sample(ctx, 0)}
	for {
		select {
		case <-quit:
			return samples
		case <-ctx.Done():
			return samples
		case <-tick.C:
		}
		s := t.sample(ctx, time.Since(t.start))
		samples = append(samples, s)
		if len(samples)%t.progress == 0 {
			t.report(s)
		}
	}
}

// sample returns the state of the run at offset at.
func (t *trial) sample(ctx context.Context, at time.Duration) sample {
	if limit, err := t.r.limit(ctx); err == nil {
		t.limit = limit // else the run is being cut short: keep the last one
	}
	return sample{at: at, queue: t.queue(), running: t.m.running(), limit: t.limit}
}

// report writes a progress line for s.
func (t *trial) report(s sample) {
	when := fmt.Sprintf("%v of %v", s.at.Round(100*time.Millisecond), t.duration)
	if s.at >= t.duration {
		when = fmt.Sprintf("%v, draining", s.at.Round(100*time.Millisecond))
	}
	fmt.Fprintf(t.log, "santa: %s: %s: %d arrived, %d done, %d waiting, %d running\n",
		t.s.name, when, t.arrived.Load(), t.m.done.Load(), s.queue, s.running)
}
