package record

import (
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/evolvekit/evolve/internal/core"
	tapes "github.com/evolvekit/evolve/internal/tape"
)

// recordingVersion is the version of the format a Recorder writes.
const recordingVersion = 1

const (
	// batchSize is how many bytes an agent gathers before it hands them to
	// the recorder's writer.
	batchSize = 64 << 10
	// maxQueued is how many bytes may wait for the writer before the
	// agents that hand it more wait for it.
	maxQueued = 64 * batchSize
	// maxFree is how many written batches the recorder keeps to be filled
	// again.
	maxFree = 8
)

// Recorder writes what the agents of one running chain record to w, as
// JSON lines (see package replay): each agent encodes its steps on its own
// goroutine, into its tape, and hands them over in batches to a goroutine
// of the Recorder's, which writes them. An agent waits only when more than
// maxQueued bytes wait for w. The first error, writing or encoding, stops
// the recording; Err returns it.
//
// Make one with [New], give the Recording [Recorder.From] returns to the
// stage's core.Inlet, and Seal it once the stage has started (Abandon it
// if it failed to). It is safe for concurrent use.
type Recorder struct {
	w      io.Writer
	base   time.Time
	agents int

	mu       sync.Mutex
	wake     sync.Cond
	queue    [][]byte
	free     [][]byte // batches written, to be filled again
	queued   int      // bytes queued or being written
	open     int      // tapes opened and not closed
	sealed   bool     // no tape opens any more
	dropped  bool     // the recorded stage did not start: open tapes are not waited for
	err      error
	finished bool
	onDone   []func()
	stopped  atomic.Bool // the recording failed: tapes stop encoding
	done     chan struct{}
}

// New starts a Recorder writing to w the steps of the agents named, first
// to last, at instants measured from base.
func New(w io.Writer, base time.Time, names []string) *Recorder {
	r := &Recorder{w: w, base: base, agents: len(names), done: make(chan struct{})}
	r.wake.L = &r.mu
	e := encoder{}
	_, offset := base.Zone()
	e.buf = fmt.Appendf(e.buf, `{"recording":"evolve","version":%d,"base":%d,"zone":%d,"agents":[`, recordingVersion, base.UnixNano(), offset)
	for i, n := range names {
		if i > 0 {
			e.buf = append(e.buf, ',')
		}
		e.string(n)
	}
	e.buf = append(e.buf, "]}\n"...)
	r.queue, r.queued = [][]byte{e.buf}, len(e.buf)
	go r.run()
	return r
}

// From returns the core.Recording of a stage whose first agent is at
// position first of the recorded chain: a negative position is that of an
// agent not recorded (a stage a chain puts in front of those it records).
func (r *Recorder) From(first int) core.Recording { return core.Recording{Recorder: r, At: first} }

// Tape returns the tape of the agent at position at, named name; nil
// (a nil tapes.Tape, not a nil *tape) past the last agent recorded.
func (r *Recorder) Tape(at int, name string) tapes.Tape {
	if at < 0 || at >= r.agents {
		return nil
	}
	r.mu.Lock()
	r.open++
	r.mu.Unlock()
	return &tape{rec: r, at: at, name: name, line: -1, enc: encoder{base: r.base}}
}

// Seal says that no more agents will start recording: once those that did
// have ended, and all is written, the Recorder is done.
func (r *Recorder) Seal() {
	r.mu.Lock()
	r.sealed = true
	r.wake.Broadcast()
	r.mu.Unlock()
}

// Abandon says that the recorded stage failed to start: the Recorder
// stops, writing nothing more, and is done without waiting for the
// agents that started recording.
func (r *Recorder) Abandon() {
	r.mu.Lock()
	r.sealed, r.dropped = true, true
	r.stopped.Store(true)
	r.wake.Broadcast()
	r.mu.Unlock()
}

// Done returns a channel closed once the Recorder is done: everything
// recorded is written, or the recording failed.
func (r *Recorder) Done() <-chan struct{} { return r.done }

// Err returns the first error the Recorder met, writing or encoding; nil
// until it fails.
func (r *Recorder) Err() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

// WhenDone calls f once the Recorder is done, at once if it is.
func (r *Recorder) WhenDone(f func()) {
	r.mu.Lock()
	if !r.finished {
		r.onDone = append(r.onDone, f)
		r.mu.Unlock()
		return
	}
	r.mu.Unlock()
	f()
}

// hand queues a batch for the writer, and returns an empty one to fill
// next; it waits while the writer is maxQueued bytes behind.
func (r *Recorder) hand(b []byte) []byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	for r.queued >= maxQueued && !r.stopped.Load() {
		r.wake.Wait()
	}
	if r.stopped.Load() {
		return nil
	}
	r.queue = append(r.queue, b)
	r.queued += len(b)
	r.wake.Broadcast()
	if n := len(r.free); n > 0 {
		b, r.free = r.free[n-1], r.free[:n-1]
		return b
	}
	return make([]byte, 0, batchSize+batchSize/4)
}

// closeTape counts a tape closed.
func (r *Recorder) closeTape() {
	r.mu.Lock()
	r.open--
	r.wake.Broadcast()
	r.mu.Unlock()
}

// fail stops the recording with err, unless it has stopped already.
func (r *Recorder) fail(err error) {
	r.mu.Lock()
	if r.err == nil {
		r.err = err
		r.queue, r.queued = nil, 0
		r.stopped.Store(true)
	}
	r.wake.Broadcast()
	r.mu.Unlock()
}

// run writes the batches as they come, until the Recorder is sealed and
// every tape is closed.
func (r *Recorder) run() {
	defer r.finish()
	for {
		r.mu.Lock()
		for len(r.queue) == 0 && !(r.sealed && (r.open == 0 || r.dropped)) {
			r.wake.Wait()
		}
		batches := r.queue
		r.queue = nil
		r.mu.Unlock()
		if len(batches) == 0 {
			return
		}
		n := 0
		for _, b := range batches {
			n += len(b)
			if r.stopped.Load() {
				continue
			}
			if _, err := r.w.Write(b); err != nil {
				r.fail(fmt.Errorf("writing: %w", err))
			}
		}
		r.mu.Lock()
		if r.err == nil {
			r.queued -= n
		}
		for _, b := range batches {
			if len(r.free) < maxFree && cap(b) >= batchSize && cap(b) <= 2*batchSize {
				r.free = append(r.free, b[:0])
			}
		}
		r.wake.Broadcast()
		r.mu.Unlock()
	}
}

// finish marks the Recorder done and calls what waits for it.
func (r *Recorder) finish() {
	r.mu.Lock()
	r.finished = true
	f := r.onDone
	r.onDone = nil
	r.mu.Unlock()
	close(r.done)
	for _, f := range f {
		f()
	}
}
