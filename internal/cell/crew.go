package cell

import (
	"context"
	"runtime"
	"sync/atomic"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/internal/safe"
	"github.com/evolvekit/evolve/internal/trace"
	"golang.org/x/sys/cpu"
)

// fewWorkers is how many workers an agent may have for one of them to take
// its inbox in when its result wakes the agent (see cell.finished). An
// agent with more takes in many results a round, and gains nothing from the
// hand-over saved; its workers then keep small stacks, not one deep enough
// for a round each.
const fewWorkers = 256

// crew is the workers of one agent. A worker is a goroutine that runs one
// Start's work, hands its result to the inbox, and waits for the next Start;
// the cell starts a new worker only when none is waiting. So an agent with N
// items in flight keeps about N workers however many items pass through,
// and a busy agent starts no goroutine per item. Idle workers go when the
// agent halts (it finished, failed or was stopped): its handle closes jobs.
// An idle worker waits on jobs alone, not in a select with a second
// channel, which thousands of idle workers would all contend for.
type crew[W, R any] struct {
	jobs chan job[W, R] // unbuffered: a Start for a worker that waits; closed once halted
	// spares are results Recycle emptied, for the next Starts' work (see
	// spec.Spec's Reuse); the cell's.
	spares []R
	kit    *kit[W, R] // what the workers read at each turn; made as the first starts

	// results is written by every worker: it has cache lines of its own,
	// away from what the workers and the cell only read.
	_       cpu.CacheLinePad
	results []agent.Done[R] // finished work not yet taken in; the inbox's mu guards it
	_       cpu.CacheLinePad
	spare   []agent.Done[R] // the cell's: the results slice the inbox takes next

	started int          // workers started, by the cell
	many    atomic.Bool  // started is above fewWorkers
	skip    atomic.Int32 // gathers its workers skip, after one that took long (see gatherLong)
}

// keptSpares is how many emptied results a cell keeps for reuse at most:
// about the batches one round of a busy agent finishes, and so starts
// again, with a limit in the thousands and work that waits.
const keptSpares = 1024

// job is what a worker is handed: a Start, and a spare result for its
// work (see spec.Spec's Reuse).
type job[W, R any] struct {
	s     agent.Start[W]
	spare R
	ctx   context.Context // the work's context, with its spans when traced
}

// kit is what a worker reads of its agent at each turn: read from the cell
// and the handle once, as the first worker starts, into a block of its own
// that nothing writes after. Where those fields are, they share cache
// lines with others that the agent's goroutine writes all the time (its
// state, its handle's lock), and a worker that read them there after each
// work would take a cache miss for each.
type kit[W, R any] struct {
	_        cpu.CacheLinePad
	jobs     chan job[W, R]
	ctx      context.Context
	work     func(ctx context.Context, id uint64, w W) (R, error)
	reuse    func(ctx context.Context, id uint64, w W, spare R) (R, error)
	recovers bool
	clock    agent.Clock
	since    func(time.Time) time.Duration
	_        cpu.CacheLinePad
}

// kit returns the workers' kit, made on the first call. It is called on
// the agent's goroutine, before the worker it is for starts.
func (c *cell[S, I, W, R, O, V]) kit() *kit[W, R] {
	if c.crew.kit == nil {
		h := c.h
		c.crew.kit = &kit[W, R]{
			jobs: c.crew.jobs, ctx: h.workCtx, work: c.spec.Work, reuse: c.spec.Reuse,
			recovers: c.spec.Recovers, clock: h.rt.Clock, since: sinceOn(h.rt.Clock),
		}
	}
	return c.crew.kit
}

// work runs j and then every job handed to it, until the agent halts,
// with what k holds. The work runs in its own frame, which holds no more
// than the work's result and its timing, and no call of the runtime's but
// the work's is under way meanwhile: an agent with thousands of workers
// keeps thousands of stacks, which stay at the smallest size only while the
// work's calls fit in it.
func (c *cell[S, I, W, R, O, V]) work(k *kit[W, R], h *Agent[I, V], j job[W, R]) {
	var woke []relayed // the worker's own, for the rounds it takes in (see finished)
	for {
		var r R
		var err error
		ctx := j.ctx
		began := k.clock.Now()
		switch {
		case k.reuse != nil && k.recovers:
			r, err = k.reuse(ctx, j.s.ID, j.s.Work, j.spare)
		case k.reuse != nil:
			r, err = safe.Reuse(ctx, k.reuse, j.s.ID, j.s.Work, j.spare)
		case k.recovers:
			r, err = k.work(ctx, j.s.ID, j.s.Work)
		default:
			r, err = safe.Work(ctx, k.work, j.s.ID, j.s.Work)
		}
		took := k.since(began)
		trace.Ended(ctx, err)
		var ok bool
		if woke, ok = c.finished(h, j.s.ID, r, err, took, began.Add(took), woke); !ok {
			return // halted while it took the inbox in: counted gone already
		}
		if j, ok = <-k.jobs; !ok {
			h.worked()
			return
		}
	}
}

// sinceOn returns the time elapsed since an instant read from clock: the
// clock's own Since, if it has one, which reads less than Now does (the
// system clock's reads the monotonic clock alone), else its Now less the
// instant.
func sinceOn(clock agent.Clock) func(time.Time) time.Duration {
	if s, ok := clock.(interface{ Since(time.Time) time.Duration }); ok {
		return s.Since
	}
	return func(t time.Time) time.Duration { return clock.Now().Sub(t) }
}

// finished puts the result of the work of Start id in the inbox of h, the
// cell's handle, unless the agent has stopped: r and err, the time it
// took, and end, the instant it ended.
// When that wakes the agent, the worker takes its inbox in itself, and the
// inboxes of the neighbours that wakes in turn (see relay), rather than
// handing the round to the agent's mailbox: one hand-over less per batch
// (unless the agent has more than fewWorkers workers). Its first round is
// stamped with end, read a moment before, rather than with a clock read of
// its own (see cell.fresh).
// Meanwhile it is counted visiting, not running (see Agent.stepOut). It
// returns woke, emptied, for reuse, and false when the agent halted
// meanwhile: the worker is then counted gone and must return.
func (c *cell[S, I, W, R, O, V]) finished(h *Agent[I, V], id uint64, r R, err error, took time.Duration, end time.Time, woke []relayed) ([]relayed, bool) {
	if h.gauges != nil {
		h.gauges.Worked(took)
	}
	d := agent.Done[R]{ID: id, Result: r, Err: err, Took: took}
	in := &h.in
	in.mu.Lock()
	if in.stopped {
		in.mu.Unlock()
		return woke, true
	}
	c.crew.results = append(c.crew.results, d)
	in.more = true
	wake := in.schedule()
	in.mu.Unlock()
	if wake && (took >= gatherAfter || c.crew.many.Load()) {
		end = c.gather(h, end)
	}
	switch {
	case !wake:
	case h.started.Load() && !c.crew.many.Load():
		c.fresh = end // the worker holds the token: the cell is its own
		h.stepOut()
		woke = runRelayed(h.visit(woke))
		return woke, h.stepIn()
	default:
		h.wake()
	}
	return woke, true
}

// gatherAfter is how long a worker's work must have taken for the worker to
// gather (see gather) before its result wakes the agent: work that waited,
// on a timer or on the network, which is likely to have ended with others.
const gatherAfter = 100 * time.Microsecond

// A gather that took longer than gatherLong says the process has more
// goroutines ready than its processors run at once (ten thousand timers
// that fired, on two cores): waiting for them held the agent's round back
// for milliseconds, while its workers ran dry. The agent's workers then
// skip the next gatherSkips gathers.
const (
	gatherLong  = time.Millisecond
	gatherSkips = 1024
)

// gather yields the processor once, before a worker whose result wakes its
// agent takes the agent's round or wakes it, so that the goroutines ready
// to run may go first: those whose work ended about when its did (timers
// that fired together, replies read in one poll) hand their results to the
// inbox meanwhile, and wake nothing, as this worker holds the inbox's
// token; the one round that follows takes them all in. With a hundred or a
// thousand items in flight of work that waits, that is about a tenth less
// CPU an item. It waits for nothing when no other goroutine is ready. A
// second yield gathers no more: each yield wakes an idle processor, which
// costs a system call. Quick work (under gatherAfter) of an agent of few
// workers does not gather, as the round it runs at once keeps its workers
// busy.
//
// It returns the instant it ended, for the round's stamp, read after
// end, the instant the work ended.
func (c *cell[S, I, W, R, O, V]) gather(h *Agent[I, V], end time.Time) time.Time {
	if c.crew.skip.Load() > 0 {
		c.crew.skip.Add(-1)
		return end
	}
	runtime.Gosched()
	now := h.rt.Clock.Now()
	if now.Sub(end) > gatherLong {
		c.crew.skip.Store(gatherSkips)
	}
	return now
}

// runInline runs the work of s on the agent's goroutine, for a spec whose
// work is Inline. Within a round, its result is handed to evolve before
// the round ends (see stepInline); outside one (as the actor starts), it
// goes to the inbox as a worker's would, and the next round, woken through
// the mailbox, takes it in.
func (c *cell[S, I, W, R, O, V]) runInline(s agent.Start[W]) {
	h := c.h
	var began time.Time
	if h.gauges != nil {
		began = h.rt.Clock.Now()
	}
	ctx := c.fl.Start(h.workCtx, s.ID, s.Work)
	r, err := safe.Work(ctx, c.spec.Work, s.ID, s.Work)
	trace.Ended(ctx, err)
	var took time.Duration
	if h.gauges != nil {
		took = h.rt.Clock.Now().Sub(began)
		h.gauges.Worked(took)
	}
	d := agent.Done[R]{ID: s.ID, Result: r, Err: err, Took: took}
	if c.round {
		c.inline = append(c.inline, d)
		return
	}
	in := &h.in
	in.mu.Lock()
	if in.stopped {
		in.mu.Unlock()
		return
	}
	c.crew.results = append(c.crew.results, d)
	in.more = true
	wake := in.schedule()
	in.mu.Unlock()
	if wake {
		h.wake()
	}
}
