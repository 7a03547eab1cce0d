package main

import (
	"sync"
	"sync/atomic"
	"time"
)

// meter counts a strategy's jobs as they start and end, and keeps each
// finished job's end-to-end time. It is safe for concurrent use.
type meter struct {
	started atomic.Int64 // jobs started
	ended   atomic.Int64 // jobs that returned, done or not
	done    atomic.Int64 // jobs done
	busy    atomic.Int64 // nanoseconds of jobs running, added up

	// e2e holds each job's time from arrival to completion, by job id;
	// each job writes its own slot, once, and nobody reads it before every
	// job has returned.
	e2e []time.Duration

	mu  sync.Mutex
	err error // the first failure
}

// newMeter returns a meter for jobs numbered 0 to n-1.
func newMeter(n int) *meter { return &meter{e2e: make([]time.Duration, n)} }

// begin counts a job that starts running, and returns when it did.
func (m *meter) begin() time.Time {
	m.started.Add(1)
	return time.Now()
}

// end counts j, which began at began, returning with err, nil if it was
// done.
func (m *meter) end(j job, began time.Time, err error) {
	m.busy.Add(int64(time.Since(began)))
	if err == nil {
		m.e2e[j.id] = time.Since(j.at)
		m.done.Add(1)
	} else {
		m.mu.Lock()
		if m.err == nil {
			m.err = err
		}
		m.mu.Unlock()
	}
	m.ended.Add(1)
}

// running returns the jobs running now.
func (m *meter) running() int { return int(m.started.Load() - m.ended.Load()) }

// failure returns the first job's failure, nil if none failed.
func (m *meter) failure() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.err
}

// times returns the end-to-end times of the jobs done. Call it only once
// every job has returned.
func (m *meter) times() []time.Duration {
	var ts []time.Duration
	for _, t := range m.e2e {
		if t > 0 {
			ts = append(ts, t)
		}
	}
	return ts
}
