package core

import (
	"sync/atomic"
	"time"

	"github.com/evolvekit/evolve/agent"
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
	jobs chan agent.Start[W] // unbuffered: a Start for a worker that waits; closed once halted

	results []agent.Done[R] // finished work not yet taken in; the inbox's mu guards it
	spare   []agent.Done[R] // the cell's: the results slice the inbox takes next

	started int         // workers started, by the cell
	many    atomic.Bool // started is above fewWorkers
}

// work runs s and then every Start handed to it, until the agent halts.
// The work runs in its own frame, which holds no more than the work's
// result and its timing, and no call of the runtime's but the work's is
// under way meanwhile: an agent with thousands of workers keeps thousands
// of stacks, which stay at the smallest size only while the work's calls
// fit in it.
func (c *cell[S, I, W, R, O, V]) work(s agent.Start[W]) {
	var woke []relayed // the worker's own, for the rounds it takes in (see finished)
	h := c.h
	for {
		var r R
		var err error
		began := h.rt.Clock.Now()
		if c.spec.Recovers {
			r, err = c.spec.Work(h.workCtx, s.ID, s.Work)
		} else {
			r, err = safely(h.workCtx, c.spec.Work, s.ID, s.Work)
		}
		end := h.rt.Clock.Now()
		var ok bool
		if woke, ok = c.finished(s.ID, r, err, end.Sub(began), end, woke); !ok {
			return // halted while it took the inbox in: counted gone already
		}
		if s, ok = <-c.crew.jobs; !ok {
			h.worked()
			return
		}
	}
}

// finished puts the result of the work of Start id in the inbox, unless
// the agent has stopped: r and err, the time it took, and end, the instant
// it ended.
// When that wakes the agent, the worker takes its inbox in itself, and the
// inboxes of the neighbours that wakes in turn (see relay), rather than
// handing the round to the agent's mailbox: one hand-over less per batch
// (unless the agent has more than fewWorkers workers). Its first round is
// stamped with end, read a moment before, rather than with a clock read of
// its own (see cell.fresh).
// Meanwhile it is counted visiting, not running (see Agent.stepOut). It
// returns woke, emptied, for reuse, and false when the agent halted
// meanwhile: the worker is then counted gone and must return.
func (c *cell[S, I, W, R, O, V]) finished(id uint64, r R, err error, took time.Duration, end time.Time, woke []relayed) ([]relayed, bool) {
	h := c.h
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
	r, err := safely(h.workCtx, c.spec.Work, s.ID, s.Work)
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
