package rate

import (
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/internal/pace"
)

// Evolve is the rate agent's behaviour: given its state and one message, the
// next state and the effects to perform. It is pure, as [agent.Evolve]
// requires; time is the message's At.
//
// It queues the items of [agent.Input] messages, and emits them unchanged and
// in order while it holds [agent.Pull] demand and the bucket holds the oldest
// item's cost, giving each emitted item's input slot back with
// [agent.Demand]. An agent.Input of plain values, not Items, brings items
// of cost 1, as a chain's rate stage with no [Config.Cost] takes them; what
// of them may pass at once is emitted as it came, with no copy. When the oldest item waits for tokens, it asks for one
// [agent.Timer] to the nanosecond the tokens are due, and never has more than
// one pending: a [agent.Tick] whose tag is not the pending timer's is
// ignored. An [agent.Set] carrying a [Limit] refills the bucket up to its
// instant at the old rate, then switches to the new limit and moves the
// timer if the due instant moved; an invalid Limit is ignored. It answers
// [agent.Query] with a [Status], and returns [agent.Finish] once, when closed
// and empty. It returns [agent.Unhandled] for any other message.
//
// In a chain, the agent after it may reserve passes of its pace, for
// retries: each pass costs a token, and the passes owed are granted ahead
// of the items waiting. Closed and empty, the agent then says it drained
// and finishes only once it hears that agent has ended. (The messages and
// effects of that exchange are the module's own: an agent.Event and
// agent.Send of internal payloads.)
//
// Each step costs O(items emitted) plus, when a timer is asked for, a few
// float64 operations to find its nanosecond.
func Evolve[T any](s State[T], m agent.Msg) (State[T], []agent.Effect) {
	if s.line != nil {
		s.line = s.line.Clone() // the lines change in place: the State given keeps its own
	}
	fx := s.step(m, nil)
	return s, fx
}

// step is Evolve on s, changed in place: the runtime's way in, which
// copies no State in or out. The methods below change s too, and append
// the effects to fx, which may be nil.
func (s *State[T]) step(m agent.Msg, fx []agent.Effect) []agent.Effect {
	switch m := m.(type) {
	case agent.Input[Item[T]]:
		if s.line != nil {
			s.queueKeyed(m.Items)
		} else {
			s.queue = s.queue.PushAll(m.Items...)
		}
		return s.settle(m.At, fx)
	case agent.Input[T]:
		return s.stepInput(&m, fx)
	case agent.Pull:
		return s.pull(m, fx)
	case agent.Tick:
		return s.tick(m, fx)
	case agent.Set[Limit]:
		return s.reshape(m, fx)
	case agent.Close:
		s.closed = true
		return s.settle(m.At, fx)
	case agent.Event[pace.Reservation]:
		return s.reserve(m.At, m.Value, fx)
	case agent.Query:
		return append(fx, agent.Reply[Status]{To: m.ID, Value: s.Status(m.At)})
	}
	return append(fx, agent.Unhandled{})
}

// stepInput is step for the Input *m, which a simulator hands it unboxed.
func (s *State[T]) stepInput(m *agent.Input[T], fx []agent.Effect) []agent.Effect {
	return s.admit(m.Items, m.At, fx)
}

// pull adds the demand m grants; a Pull of less than 1 changes nothing.
func (s *State[T]) pull(m agent.Pull, fx []agent.Effect) []agent.Effect {
	if m.N < 1 {
		return fx
	}
	s.demand += min(m.N, agent.Unbounded-s.demand)
	return s.settle(m.At, fx)
}

// tick handles the pending timer's Tick, and ignores a stale one.
func (s *State[T]) tick(m agent.Tick, fx []agent.Effect) []agent.Effect {
	if !s.armed || m.Tag != s.tag {
		return fx
	}
	s.armed = false
	if s.catchUp(m.At) {
		fx = s.pass(s.due, fx)
	}
	return s.settle(m.At, fx)
}

// catchUp reports whether what was due at s.due passes as of s.due, its
// Tick having come at instant at. A timer may fire late. Late by less than
// maxCatchUp, or than the refill of what was due, the lateness is not lost
// to a bucket too small to hold what refilled meanwhile (with a burst of
// 1, a timer that fires 1 ms late would otherwise cost every token of that
// millisecond but one). Later than that, the process was stalled (a long
// pause, a stopped process, a starved CPU), and the stall is not made up:
// the bucket counts from the Tick, and lets out at most its burst at once.
// The agent of a Shared limit never catches up: its share adds up to the
// limit with the others' only as long as it keeps within it at every
// instant.
func (s *State[T]) catchUp(at time.Time) bool {
	if s.shared || !s.due.Before(at) || s.bucket.limit.lapsed(at) {
		return false
	}
	late := at.Sub(s.due)
	if late < maxCatchUp {
		return true
	}
	cost := 1.0
	if s.owed == 0 && s.waiting() > 0 {
		cost = s.head()
	}
	return late.Seconds()*s.bucket.limit.Rate < cost
}

// maxCatchUp is the lateness of a Tick beyond which a stall is not made up
// (see catchUp): more than a loaded machine's timers are late by.
const maxCatchUp = 5 * time.Millisecond

// reserve takes the reservation m, at instant at: passes owed to the agent
// after this one, or the news that it has ended, after which nothing more
// is owed.
func (s *State[T]) reserve(at time.Time, m pace.Reservation, fx []agent.Effect) []agent.Effect {
	s.paced = true
	switch {
	case m.Last:
		s.last, s.owed = true, 0
	case m.N > 0 && !s.last:
		s.owed += min(m.N, agent.Unbounded-s.owed)
	}
	return s.settle(at, fx)
}

// reshape switches the bucket to the Limit m carries, if it is valid. An
// agent of a Shared limit reports its use in answer.
func (s *State[T]) reshape(m agent.Set[Limit], fx []agent.Effect) []agent.Effect {
	if !m.Value.usable() {
		return fx
	}
	s.bucket = s.bucket.reshape(m.At, m.Value)
	fx = s.settle(m.At, fx)
	if s.shared {
		s.asked = false
		fx = append(fx, s.use())
	}
	return fx
}

// settle brings s up to date at instant at: it emits what it can, asks for a
// timer if the oldest item must wait, and finishes if it is done. An agent
// of a Shared limit with items waiting and no token to come says so, once
// until its next Limit: items that downstream does not want yet wait for
// demand, not tokens.
func (s *State[T]) settle(at time.Time, fx []agent.Effect) []agent.Effect {
	fx = s.pass(at, fx)
	fx = s.arm(at, fx)
	return s.finish(s.ask(fx))
}

// ask appends to fx the report of an agent of a Shared limit whose items
// wait with no token to come, once until its next Limit.
func (s *State[T]) ask(fx []agent.Effect) []agent.Effect {
	if s.shared && !s.asked && !s.armed && (min(s.waiting(), s.demand) > 0 || s.owed > 0) {
		s.asked = true
		fx = append(fx, s.use())
	}
	return fx
}

// use is what a rate agent of a Shared limit tells it of its use: the
// items waiting for tokens, and those it let through in all.
type use struct{ waiting, passed int }

// use returns the effect that reports s's use: of the items it holds, it
// counts those that downstream wants, which wait for tokens only.
func (s *State[T]) use() agent.Effect {
	waiting := min(s.waiting(), s.demand) + s.owed
	return agent.Send[use]{Value: use{waiting: waiting, passed: s.passed + s.granted}}
}

// finish returns [agent.Finish] once input has ended and nothing waits.
// While the agent after it may still reserve passes, it says it drained
// instead, once, and finishes when that agent has ended.
func (s *State[T]) finish(fx []agent.Effect) []agent.Effect {
	if !s.closed || s.finished || s.waiting() > 0 {
		return fx
	}
	if s.paced && !s.last {
		if !s.drained {
			s.drained = true
			fx = append(fx, pace.Out(pace.Drained{}))
		}
		return fx
	}
	s.finished = true
	return append(fx, agent.Finish{})
}
