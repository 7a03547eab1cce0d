package cell

import "errors"

// sinkFailed records the first panic of the sink for Wait.
func (h *Agent[I, V]) sinkFailed(err error) {
	h.mu.Lock()
	if h.sinkErr == nil {
		h.sinkErr = err
	}
	h.mu.Unlock()
}

// conclude ends an agent from its own actor: it finished, with err, or its
// evolve broke, with err. The inbox takes nothing more and no work starts;
// final, when ok, is the status it ended with.
func (h *Agent[I, V]) conclude(err error, final V, ok bool) {
	h.in.mu.Lock()
	h.in.closed, h.in.stopped = true, true
	h.in.refill()
	h.in.drop()
	h.in.mu.Unlock()
	h.update(func() {
		if ok && !h.hasFinal {
			h.final, h.hasFinal = final, true
		}
		h.end(err)
		h.halt()
	})
}

// actorStopped records that the actor is gone from the runtime, with the
// status it stopped with when ok.
func (h *Agent[I, V]) actorStopped(final V, ok bool) {
	h.pid.Store(nil)
	var log bool
	h.update(func() {
		if ok && !h.hasFinal {
			h.final, h.hasFinal = final, true
		}
		h.actorGone = true
		close(h.gone)
		log, final, ok = h.logFinal, h.final, h.hasFinal
	})
	if log && ok {
		h.logStatus(final)
	}
}

// startWorker counts one more worker, unless the agent has halted. The
// caller holds mu.
func (h *Agent[I, V]) startWorker() bool {
	if h.halted {
		return false
	}
	h.running++
	h.workers++
	return true
}

// worked counts one worker less.
func (h *Agent[I, V]) worked() {
	h.update(func() { h.running-- })
}

// stepOut counts a worker that takes the agent's inbox in as visiting, not
// running: the code a round calls may Stop the agent, which waits for the
// running workers only. Done waits for the visiting ones too.
func (h *Agent[I, V]) stepOut() {
	h.update(func() { h.running--; h.visiting++ })
}

// stepIn counts a visiting worker as running again and reports true, or,
// once the agent has halted, counts it gone and reports false.
func (h *Agent[I, V]) stepIn() (ok bool) {
	h.update(func() {
		h.visiting--
		if !h.halted {
			h.running++
			ok = true
		}
	})
	return ok
}

// WhenDone calls f once the agent is done: at once if it is.
func (h *Agent[I, V]) WhenDone(f func()) {
	h.mu.Lock()
	if h.isDone {
		h.mu.Unlock()
		f()
		return
	}
	h.onDone = append(h.onDone, f)
	h.mu.Unlock()
}

// update runs f holding mu, then closes what f's changes let close, and
// runs what waited for the agent to be done.
func (h *Agent[I, V]) update(f func()) {
	h.mu.Lock()
	f()
	if h.halted && h.running == 0 && !h.isIdle {
		h.isIdle = true
		close(h.idle)
	}
	var fire []func()
	done := h.ended && h.isIdle && h.actorGone && h.visiting == 0 && !h.isDone
	if done {
		h.isDone = true
		fire, h.onDone = h.onDone, nil
		close(h.done)
	}
	h.mu.Unlock()
	if done {
		h.cancel(nil)
		h.rt.Release(h)
		h.rt.Free(h.id)
		for _, g := range fire {
			g()
		}
	}
}

// end records the outcome, once. The caller holds mu.
func (h *Agent[I, V]) end(err error) {
	if !h.ended {
		h.ended = true
		h.outcome = errors.Join(err, h.sinkErr)
	}
}

// halt lets the workers go: no work starts any more. The caller holds mu.
func (h *Agent[I, V]) halt() {
	if !h.halted {
		h.halted = true
		if h.dismiss != nil {
			h.dismiss()
		}
	}
}
