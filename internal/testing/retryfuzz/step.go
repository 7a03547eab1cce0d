package retryfuzz

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/agent/agenttest"
	"github.com/evolvekit/evolve/internal/fuzzin"
	"github.com/evolvekit/evolve/internal/pace"
)

// step decodes one record and delivers what it says (see the package
// doc).
func (m *model[S, T]) step(in *fuzzin.Bytes) {
	kind, a, b, dt := in.Byte(), in.Byte(), in.Byte(), in.Byte()
	m.advance(fuzzin.Delay(dt))
	switch kind % 16 {
	case 0, 1, 2, 3, 4:
		m.post(1 + int(a)%3)
	case 5, 6, 7, 8:
		m.complete(int(a), b)
	case 9:
		m.deliver(agent.Tick{Tag: tag})
	case 10, 11:
		m.deliver(agent.Pull{N: 1 + int(a)%4})
	case 12:
		msg, limit := m.a.SetLimit(a)
		if limit != 0 {
			m.limit = limit
		}
		m.deliver(msg)
	case 13:
		want := []agent.Effect{agent.Reply[T]{To: uint64(a), Value: m.a.Status(m.s)}}
		if fx := m.deliver(agent.Query{ID: uint64(a)}); !m.a.Same(fx, want) {
			m.fail("query answered with %v", fx)
		}
	case 14:
		m.grant(a)
	case 15:
		if !m.closed && a%8 == 0 {
			m.deliver(agent.Close{})
		}
	}
}

// advance moves the clock on by d, delivering the Tick of the retry timer
// at its instant if it falls due on the way, as the runtime would.
func (m *model[S, T]) advance(d time.Duration) {
	until := m.now.Add(d)
	for m.timer.on && !m.timer.due.After(until) {
		m.now = maxTime(m.now, m.timer.due)
		m.timer.on = false
		if m.tickAt.Equal(m.now) {
			m.ticks++
		} else {
			m.tickAt, m.ticks = m.now, 1
		}
		if m.ticks > 100 {
			m.fail("the retry timer fired %d times at %v: %+v", m.ticks, m.now.Sub(agenttest.T0), m.a.Status(m.s))
		}
		m.deliver(agent.Tick{Tag: tag})
	}
	m.now = until
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// grant brings the agent passes it reserved, as the pacer before it in a
// chain would: all of them if bit 6 of a is set, else 1 + a%4 at most,
// and one more that it did not reserve if bit 7 is set.
func (m *model[S, T]) grant(a byte) {
	n := min(1+int(a)%4, m.reserved)
	if a&64 != 0 {
		n = m.reserved
	}
	extra := int(a >> 7)
	if n+extra == 0 {
		return
	}
	m.deliver(pace.In(pace.Pass{N: n + extra}))
}

// post sends n items, no more than the feeder holds slots for, none after
// Close or Finish.
func (m *model[S, T]) post(n int) {
	n = min(n, m.credits)
	if n == 0 || m.closed || m.finishes > 0 {
		return
	}
	items := make([]int, n)
	for i := range items {
		items[i] = len(m.items)
		m.items = append(m.items, &item{})
	}
	m.credits -= n
	m.deliver(agent.Input[int]{Items: items})
}

// complete ends the batch in flight pick%16 chooses (in ID order). Item j
// fails if bit j%8 of fails is set, with the error pick>>4 chooses: 0-9 a
// plain one; 10-11 one asking for a wait of 1 + pick%16 ms; 12 a
// cancellation; 13 errPermanent; 14-15 the batch returns only its first
// fails%n results, and an error for the batch (14) or none (15).
func (m *model[S, T]) complete(pick int, fails byte) {
	if len(m.running) == 0 {
		return
	}
	ids := make([]uint64, 0, len(m.running))
	for id := range m.running {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	id := ids[pick%16%len(ids)]
	b := m.running[id]
	rs := make([]result, len(b.seqs))
	for j, seq := range b.seqs {
		rs[j] = result{Seq: seq, Value: int(seq)*10 + b.attempt}
		if fails>>(j%8)&1 == 0 {
			continue
		}
		plain := fmt.Errorf("item %d attempt %d failed", seq, b.attempt)
		switch flavour := pick >> 4; {
		case flavour < 10:
			rs[j].Err = plain
		case flavour < 12:
			rs[j].Err = agent.RetryAfter(plain, time.Duration(1+pick%16)*time.Millisecond)
		case flavour == 12:
			rs[j].Err = fmt.Errorf("item %d: %w", seq, context.Canceled)
		case flavour == 13:
			rs[j].Err = fmt.Errorf("item %d: %w", seq, errPermanent)
		}
	}
	var whole error
	if flavour := pick >> 4; flavour >= 14 {
		rs = rs[:int(fails)%len(rs)]
		if flavour == 14 {
			whole = fmt.Errorf("batch %d attempt %d broke", id, b.attempt)
		}
	}
	m.deliver(agent.Done[[]result]{ID: id, Result: rs, Err: whole})
}
