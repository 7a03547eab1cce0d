package agent

// crew is the workers of one agent. A worker is a goroutine that runs one
// Start's work, hands its result to the inbox, and waits for the next Start;
// the cell starts a new worker only when none is waiting. So an agent with N
// items in flight keeps about N workers however many items pass through,
// and a busy agent starts no goroutine per item. The workers go when the
// agent finishes, fails or stops: the cell then closes jobs.
type crew[W, R any] struct {
	jobs   chan Start[W] // unbuffered: a Start for a worker that waits
	closed bool          // jobs is closed; the cell's

	results []Done[R] // finished work not yet taken in; the inbox's mu guards it
	spare   []Done[R] // the cell's: the results slice the inbox takes next
}

// work runs s and then every Start handed to it, until the agent lets its
// workers go.
func (c *cell[S, I, W, R, O, V]) work(s Start[W]) {
	h := c.h
	defer h.worked()
	for ok := true; ok; s, ok = <-c.crew.jobs {
		r, err := safely(h.workCtx, c.spec.Run, s.Work)
		c.finished(Done[R]{ID: s.ID, Result: r, Err: err})
	}
}

// dismiss lets the agent's workers go once they are idle: it has finished,
// failed or is stopping, so no work will start again. It runs on the cell's
// goroutine, the only one that hands out work.
func (c *cell[S, I, W, R, O, V]) dismiss() {
	if !c.crew.closed {
		c.crew.closed = true
		close(c.crew.jobs)
	}
}

// finished puts a work result in the inbox, unless the agent has stopped.
func (c *cell[S, I, W, R, O, V]) finished(d Done[R]) {
	in := &c.h.in
	in.mu.Lock()
	if in.stopped {
		in.mu.Unlock()
		return
	}
	c.crew.results = append(c.crew.results, d)
	in.more = true
	c.h.notify()
}
