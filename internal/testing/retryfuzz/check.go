package retryfuzz

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/agent/agenttest"
	"github.com/evolvekit/evolve/internal/pace"
)

// effects checks the effects of one message against the model and
// updates it: first the Cancel, the Starts, the Demand and the timer, then
// the dead letters, what was emitted and the Finish, which may concern
// items failed for the cancellation.
func (m *model[S, T]) effects(fx []agent.Effect) {
	m.starts, m.given = 0, 0
	started := false
	for _, e := range fx {
		switch e := e.(type) {
		case agent.Cancel:
			m.cancel(e)
		case agent.Start[[]int]:
			m.start(e)
			started = true
		case agent.Demand:
			m.slots(e)
		case agent.Timer:
			if e.Tag != tag || e.Delay < 0 {
				m.fail("armed %+v", e)
			}
			m.timer.on, m.timer.due, m.timer.armed = true, m.now.Add(e.Delay), m.now
		case agent.Disarm:
			if e.Tag != tag || !m.timer.on {
				m.fail("disarmed %+v, pending: %v", e, m.timer.on)
			}
			m.timer.on = false
		case agent.Send[pace.Reserve]:
			if e.Value.N < 1 {
				m.fail("reserved %+v", e)
			}
			m.reserved += e.Value.N
		}
	}
	if m.given != m.starts {
		m.fail("gave %d slots back, %d items started", m.given, m.starts)
	}
	if limit := m.startLimit(); started && len(m.running) > limit {
		m.fail("started work with %d batches in flight over a limit of %d", len(m.running), limit)
	}
	for _, e := range fx {
		switch e := e.(type) {
		case agent.DeadLetter:
			m.deadLetter(e)
		case agent.Emit[result]:
			m.emit(e.Values)
		case agent.Finish:
			m.finish(e)
		}
	}
}

// cancel checks the one cancellation: asked for by the first failure that
// stood, when cancelling on error. The items waiting for a retry fail
// with its cause.
func (m *model[S, T]) cancel(e agent.Cancel) {
	if !m.cancels || m.cause != nil || e.Cause == nil || m.firstErr == nil && !m.anyFirst {
		m.fail("cancelled with %v: cancelling on error %v, cancelled before with %v, first failure %v", e.Cause, m.cancels, m.cause, m.firstErr)
	}
	if m.firstErr != nil && !errors.Is(e.Cause, m.firstErr) {
		m.fail("cancelled with %v, not wrapping the first failure %v", e.Cause, m.firstErr)
	}
	m.cause = e.Cause
	for seq, it := range m.items {
		if it.phase == phaseRetrying {
			m.conclude(it, result{Seq: uint64(seq), Err: m.cause}, false)
		}
	}
}

// start checks a Start: the next items, or the retry of one item waiting
// for it, due by now, within its attempts; never after the cancellation.
func (m *model[S, T]) start(e agent.Start[[]int]) {
	if m.cause != nil {
		m.fail("start %+v after the cancellation", e)
	}
	if _, ok := m.running[e.ID]; ok {
		m.fail("start %+v: a batch with that ID is in flight", e)
	}
	if e.ID == uint64(m.started) {
		if len(e.Work) < 1 || len(e.Work) > m.maxBatch {
			m.fail("start %+v: batches of %d at most", e, m.maxBatch)
		}
		b := &batch{attempt: 1}
		for i, v := range e.Work {
			seq := m.started + i
			if seq >= len(m.items) || v != seq || m.items[seq].phase != phaseQueued {
				m.fail("start %+v, want the items from %d", e, m.started)
			}
			m.items[seq].phase = phaseRunning
			m.items[seq].tries = 1
			b.seqs = append(b.seqs, uint64(seq))
		}
		m.started += len(e.Work)
		m.starts += len(e.Work)
		m.running[e.ID] = b
		return
	}
	if e.ID >= uint64(len(m.items)) || len(e.Work) != 1 || e.Work[0] != int(e.ID) {
		m.fail("start %+v: neither the next items nor the retry of one", e)
	}
	it := m.items[e.ID]
	switch {
	case it.phase != phaseRetrying:
		m.fail("retry %+v of an item in phase %d", e, it.phase)
	case m.now.Before(it.minDue):
		m.fail("retry %+v at %v, before its wait ended at %v", e, m.now.Sub(agenttest.T0), it.minDue.Sub(agenttest.T0))
	case it.tries >= m.attempts:
		m.fail("retry %+v after %d attempts of %d", e, it.tries, m.attempts)
	case m.passes == 0:
		m.fail("retry %+v without a pass", e)
	}
	m.passes--
	it.tries++
	it.phase = phaseRunning
	m.running[e.ID] = &batch{seqs: []uint64{e.ID}, attempt: it.tries}
}

// slots checks that the slots given back are those of the items that
// left the queue: started, or failed unstarted once cancelled.
func (m *model[S, T]) slots(e agent.Demand) {
	if m.cause != nil {
		for range e.N {
			if m.started >= len(m.items) || m.items[m.started].phase != phaseQueued {
				m.fail("gave %d slots back after the cancellation with %d items queued", e.N, len(m.items)-m.started)
			}
			m.conclude(m.items[m.started], result{Seq: uint64(m.started), Err: m.cause}, false)
			m.started++
		}
	} else {
		m.given += e.N
	}
	m.credits += e.N
}

// emit checks the results emitted: each once, standing, within demand, in
// order when ordered, with its value and error.
func (m *model[S, T]) emit(rs []result) {
	for _, r := range rs {
		if r.Seq >= uint64(len(m.items)) || m.items[r.Seq].phase != phaseHeld {
			m.fail("emitted %+v, not standing", r)
		}
		it := m.items[r.Seq]
		want := it.result
		switch {
		case !m.unordered && r.Seq != uint64(m.emitted):
			m.fail("emitted Seq %d out of order, want %d", r.Seq, m.emitted)
		case m.demand <= 0:
			m.fail("emitted %+v with no demand", r)
		case r.Value != want.Value || (it.anyErr && r.Err == nil) || (!it.anyErr && r.Err != want.Err):
			m.fail("emitted %+v, want %+v (the agent's own error: %v)", r, want, it.anyErr)
		}
		it.phase = phaseEmitted
		m.emitted++
		m.demand--
	}
}

// deadLetter checks a dead letter: one for each item whose failure stands,
// with the item, its error and the attempts it had.
func (m *model[S, T]) deadLetter(d agent.DeadLetter) {
	if d.Seq >= uint64(len(m.items)) {
		m.fail("dead letter %+v of no item", d)
	}
	it := m.items[d.Seq]
	switch {
	case it.phase < phaseHeld || it.result.Err == nil && !it.anyErr:
		m.fail("dead letter %+v of an item in phase %d, result %+v", d, it.phase, it.result)
	case it.dead:
		m.fail("dead letter %+v again", d)
	case d.Item != any(int(d.Seq)) || d.Attempts != it.tries:
		m.fail("dead letter %+v, want item %d after %d attempts", d, d.Seq, it.tries)
	case it.anyErr && d.Err == nil || !it.anyErr && d.Err != it.result.Err:
		m.fail("dead letter %+v, want the error %v", d, it.result.Err)
	}
	it.dead = true
}

// finish checks the Finish: once, after Close, with every item emitted,
// carrying the first failure, and a dead letter for each item whose
// failure stands.
func (m *model[S, T]) finish(e agent.Finish) {
	m.finishes++
	switch {
	case m.finishes > 1:
		m.fail("finished twice")
	case !m.closed || m.emitted != len(m.items):
		m.fail("finished with %d of %d items emitted, closed %v", m.emitted, len(m.items), m.closed)
	case m.anyFirst && e.Err == nil || !m.anyFirst && e.Err != m.firstErr:
		m.fail("finished with %v, want the first failure %v", e.Err, m.firstErr)
	}
	for seq, it := range m.items {
		if it.dead != (it.result.Err != nil || it.anyErr) {
			m.fail("item %d ended with %+v, dead letter: %v", seq, it.result, it.dead)
		}
	}
}

// invariants checks the Status and the timer against the model.
func (m *model[S, T]) invariants() {
	st := m.status()
	count := [phaseEmitted + 1]int{}
	var minDue, maxDue time.Time
	var latest []time.Time
	for _, it := range m.items {
		count[it.phase]++
		if it.phase == phaseRetrying {
			if minDue.IsZero() || it.minDue.Before(minDue) {
				minDue = it.minDue
			}
			latest = append(latest, it.maxDue)
		}
	}
	// The timer waits for the first retry with no pass coming: the
	// (k+1)th due, k the passes held or reserved, which is due by the
	// (k+1)th of the latest instants.
	slices.SortFunc(latest, time.Time.Compare)
	if k := m.reserved + m.passes; k < len(latest) {
		maxDue = latest[k]
	}
	switch {
	case st.Queued != count[phaseQueued] || st.Queued+m.credits != m.bound:
		m.fail("%d queued, %d slots held by the feeder, bound %d; the model has %d queued", st.Queued, m.credits, m.bound, count[phaseQueued])
	case st.InFlight != count[phaseRunning] || st.Batches != len(m.running):
		m.fail("%d items in %d batches in flight, want %d in %d", st.InFlight, st.Batches, count[phaseRunning], len(m.running))
	case st.Retrying != count[phaseRetrying] || st.Retried != m.retried:
		m.fail("%d items waiting for a retry, %d retried; want %d and %d", st.Retrying, st.Retried, count[phaseRetrying], m.retried)
	case st.Held != count[phaseHeld] || st.Emitted != m.emitted || st.Done != m.concluded || st.Failed != m.failedN:
		m.fail("status %+v; model: %d held, %d emitted, %d done, %d failed", st, count[phaseHeld], m.emitted, m.concluded, m.failedN)
	case int(st.Demand) != m.demand || !m.limitOK(st.Limit):
		m.fail("demand %d, limit %d; want %d, and a limit %s", st.Demand, st.Limit, m.demand, m.wantLimit())
	case st.InFlight+st.Held+st.Retrying > int(st.Demand):
		m.fail("%d in flight, %d held and %d waiting for a retry exceed the demand of %d", st.InFlight, st.Held, st.Retrying, st.Demand)
	case m.timer.on && st.Retrying == 0:
		m.fail("the retry timer is pending with no item waiting for a retry")
	case m.cause == nil && m.reserved+m.passes > count[phaseRetrying]:
		m.fail("%d passes reserved and %d held for %d items waiting for a retry", m.reserved, m.passes, count[phaseRetrying])
	case !m.timer.on && st.Retrying > 0 && st.Batches < st.Limit && m.reserved == 0:
		m.fail("%d items wait for a retry with no timer pending, no pass reserved and room for %d more batches", st.Retrying, st.Limit-st.Batches)
	case m.timer.on && m.timer.due.Before(minDue):
		m.fail("the retry timer is due at %v, before any retry may be", m.timer.due.Sub(agenttest.T0))
	case m.timer.on && m.timer.due.After(maxTime(m.timer.armed, maxDue)):
		m.fail("the retry timer is due at %v, after a retry is due by %v", m.timer.due.Sub(agenttest.T0), maxDue.Sub(agenttest.T0))
	}
}

// drain closes the input, then ends work (most of it well), grants demand

// startLimit is the limit work must keep within when it starts: the one
// the model knows, else the agent's own.
func (m *model[S, T]) startLimit() int {
	if m.limit != 0 {
		return m.limit
	}
	return m.status().Limit
}

// limitOK reports whether l is the limit the model knows, or within its
// bounds when the agent is free to choose it.
func (m *model[S, T]) limitOK(l int) bool {
	if m.limit != 0 {
		return l == m.limit
	}
	return m.lo <= l && l <= m.hi
}

// wantLimit says what limit limitOK takes.
func (m *model[S, T]) wantLimit() string {
	if m.limit != 0 {
		return fmt.Sprintf("of %d", m.limit)
	}
	return fmt.Sprintf("within [%d, %d]", m.lo, m.hi)
}
