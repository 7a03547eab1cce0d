package cell

import (
	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/internal/fair"
	"github.com/evolvekit/evolve/internal/trace"
)

// notify unlocks the inbox, which the caller locked to add to it, and wakes
// the actor if it was idle.
func (h *Agent[I, V]) notify() {
	wake := h.in.schedule()
	h.in.mu.Unlock()
	if wake {
		h.wake()
	}
}

// notifyVia is notify for a neighbour's call on its own goroutine: an idle
// agent is noted in the neighbour's relay r, when r is on, rather than woken
// through its mailbox.
func (h *Agent[I, V]) notifyVia(r *Relay) {
	wake := h.in.schedule()
	h.in.mu.Unlock()
	if wake && !r.note(h, h.started.Load()) {
		h.wake()
	}
}

// visit implements relayed.
func (h *Agent[I, V]) visit(woke []relayed) []relayed {
	woke, p := h.takeIn(woke)
	if p != pauseIdle {
		// Rounds are left, or the agent is over and its actor must stop:
		// its mailbox does the rest. The token is still taken.
		h.wake()
	}
	return woke
}

// Relay returns the agent's relay, which the agents beside it in a chain
// hand to its PullVia and Feed, or to theirs, on its goroutine.
func (h *Agent[I, V]) Relay() *Relay { return &h.relay }

// wake tells the actor to take in its inbox. Before the actor exists (its
// port may post as it opens, before the actor is spawned), a message to
// its PID would be lost, and with it the inbox's token: the wake is noted
// instead, and sent as the actor is spawned (see spawnedNow), by whichever
// of the two sees the other's mark.
func (h *Agent[I, V]) wake() {
	if !h.spawned.Load() {
		h.early.Store(true)
		if !h.spawned.Load() || !h.early.CompareAndSwap(true, false) {
			return
		}
	}
	if pid := h.pid.Load(); pid != nil {
		h.rt.System.Root.Send(pid, wake{})
	}
}

// spawnedNow marks the actor as existing, and sends it the wake asked for
// before it did, if one was.
func (h *Agent[I, V]) spawnedNow() {
	h.spawned.Store(true)
	if h.early.CompareAndSwap(true, false) {
		h.wake()
	}
}

// post hands m to the agent unless it has stopped, and reports whether it
// did. Timers, settings and queries use it, so nothing lands in
// protoactor's dead letters once the agent has ended.
func (h *Agent[I, V]) post(m any) bool {
	h.in.mu.Lock()
	if h.in.stopped {
		h.in.mu.Unlock()
		return false
	}
	h.in.add(m)
	h.notify()
	return true
}

// grant returns n input slots. An agent that gives back more than it took
// has a bug: the surplus is dropped, so the bound holds, and logged.
func (h *Agent[I, V]) grant(n int) {
	h.in.mu.Lock()
	h.in.credits += n
	surplus := h.in.credits - h.in.bound
	if surplus > 0 {
		h.in.credits = h.in.bound
	}
	h.in.refill()
	h.in.mu.Unlock()
	if surplus > 0 {
		h.log.Warn().Int("surplus", surplus).Msg("agent gave back more input slots than it took")
	}
}

// release gives back the credits of keys held (see inbox.release); the
// Demand that comes with it refills.
func (h *Agent[I, V]) release(runs []fair.Run) {
	h.in.mu.Lock()
	h.in.release(runs)
	h.in.mu.Unlock()
}

// pull grants the agent demand for n more values.
func (h *Agent[I, V]) pull(n int) { h.PullVia(n, nil) }

// PullVia is pull from the agent after this one, on its goroutine, whose
// relay is r.
func (h *Agent[I, V]) PullVia(n int, r *Relay) {
	h.in.mu.Lock()
	if h.in.stopped {
		h.in.mu.Unlock()
		return
	}
	h.in.pull = min(h.in.pull+n, agent.Unbounded)
	h.notifyVia(r)
}

// Feed passes items on to the agent from the agent before it, which holds
// demand for them, on its goroutine, whose relay is r: no credit is spent.
func (h *Agent[I, V]) Feed(items []I, r *Relay) {
	if len(items) == 0 {
		return
	}
	h.in.mu.Lock()
	if h.in.stopped {
		h.in.mu.Unlock()
		return
	}
	h.line.Arrive(len(items))
	h.in.put(items...)
	h.notifyVia(r)
}

// Hand returns where the agent before hands its items' span contexts over.
func (h *Agent[I, V]) Hand() *trace.Hand { return h.line.Hand() }
