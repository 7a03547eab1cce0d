// Package retryfuzz is the harness and the model behind the fuzz targets
// FuzzEvolveRetry of packages parallel and adaptive: agents of parallel's
// kind, with retries, driven with message sequences decoded from a
// fuzzer's bytes and checked after every message.
//
// Run drives the agent the way the runtime would: items only within the
// input slots the agent gave back, a Done only for a batch in flight (its
// items failing or not, with errors worth a retry or not, asking for a
// wait or not, or too few results), the Tick of the retry timer at the
// instant it was armed for and stale ones, the passes reserved, demand,
// limits, queries and Close once. A model of the agent predicts which
// failures are retried and which stand, and after every message it checks
// the effects and the Status against it: the items started and retried,
// each retry of an item waiting for one, no sooner than the wait it asked
// for, within its attempts and with a pass, no more passes reserved than
// items wait; the results emitted, each once, within demand, in order when
// ordered, with the value or error of its last attempt; the input slots;
// the limit; the timer pending while items wait for a retry (or, their
// wait over, for a batch to end), never early, and not firing again and
// again at one instant; the cancellation; never Unhandled. After Close
// and the drain, every accepted item came out exactly once and Finish
// came once, last.
//
// The first three bytes of an input are the configuration, of which the
// agent decodes some bits itself (see Config); the rest are records of
// four bytes, a kind, two arguments a and b and a step of the clock. The
// clock moves on by the fourth byte (see fuzzin.Delay), the retry timer
// ticking on the way at the instant it was armed for, then comes what the
// kind says:
//
//	kind%16 0-4: 1 + a%3 items, within the slots the feeder holds, none
//	             after Close
//	        5-8: the end of the batch in flight a%16 picks (in ID order),
//	             its item j failing if bit j%8 of b is set, with the error
//	             a>>4 picks: 0-9 a plain one; 10-11 one asking for a wait
//	             of 1 + a%16 ms; 12 a cancellation; 13 one Retry.If may
//	             refuse; 14-15 the batch returns only its first b%n
//	             results, and an error for the batch (14) or none (15)
//	          9: a stale Tick of the retry timer
//	      10-11: a grant of 1 + a%4 demand
//	         12: the limit set as Agent.SetLimit decodes a
//	         13: a query
//	         14: a grant of the passes reserved (pace.Reserve): all
//	             of them if bit 6 of a is set, else 1 + a%4 at most, and
//	             one more that was not reserved if bit 7 is set
//	         15: Close, once, if a%8 is 0 (else nothing but the clock)
package retryfuzz

import (
	"errors"
	"reflect"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/internal/fuzzin"
	"github.com/evolvekit/evolve/parallel"
)

// Failer is what Run reports a broken promise to: a *testing.T, or
// anything whose Fatalf does not return.
type Failer interface {
	Helper()
	Fatalf(format string, args ...any)
}

// Agent is what differs between the agents Run drives: how the state is
// built, evolved and read. S is the state, T the snapshot a Query is
// answered with, compared with ==. Every field but Same is required; Run
// only reads an Agent, so one may serve runs in parallel.
type Agent[S any, T any] struct {
	// New builds the state from the configuration decoded by the model,
	// decoding the bits of Config.C0 and Config.C1 the model leaves to it,
	// and returns what the model needs to know of it.
	New func(Config) (S, Setup, error)
	// RetryIf reports whether the first two configuration bytes ask for a
	// Retry.If, one that retries every failure but the model's permanent
	// one.
	RetryIf func(c0, c1 byte) bool
	// Evolve is the agent's evolve function.
	Evolve func(S, agent.Msg) (S, []agent.Effect)
	// Status returns the snapshot a Query is answered with; Base the
	// parallel.Status within it.
	Status func(S) T
	Base   func(T) parallel.Status
	// SetLimit returns the message that sets the limit, decoded from a,
	// and the limit the agent then has, or 0 if the agent is free to
	// choose it within Setup.Min and Setup.Max.
	SetLimit func(a byte) (agent.Msg, int)
	// Same reports whether two lists of effects are the same; nil is
	// reflect.DeepEqual.
	Same func(a, b []agent.Effect) bool
}

// Config is what the model decoded from an input's configuration bytes
// for Agent.New: c0, c1 and c2 are its first three bytes.
//
//	c1: Queue 1 + c1%8; Retry.Attempts 1 + (c1>>3)%4
//	c2: Retry.Backoff (the default, 1ms, 10ms or 1µs) and MaxBackoff (the
//	    default, 2ms, 50ms or 1s) in its two lowest bit pairs; c2>>4 a
//	    first demand of c2>>4 - 1, unbounded if 0
//
// and Retry.If as Agent.RetryIf says. The other bits of c0 and c1 are the
// agent's to decode.
type Config struct {
	// C0 and C1 are the first two configuration bytes.
	C0, C1 byte
	// Seed is made of the input's first bytes (see fuzzin.Bytes.Seed); it
	// is also the seed of Retry.
	Seed uint64
	// Queue is the input bound.
	Queue int
	// Retry is the retry policy.
	Retry parallel.Retry
}

// Setup is what the model needs to know of the state Agent.New built,
// beyond Config.
type Setup struct {
	// Limit is the limit, which only Agent.SetLimit changes; 0 if the
	// agent is free to choose it within [Min, Max].
	Limit    int
	Min, Max int
	// MaxBatch is the most items a batch may hold.
	MaxBatch int
	// Unordered is whether results are emitted as they stand, and
	// CancelOnError whether the first failure that stands cancels the
	// work.
	Unordered, CancelOnError bool
}

// Tally counts what one run saw.
type Tally struct {
	// Messages counts the messages delivered, the drain's included.
	Messages int
	// Items counts the items accepted, Retried the retries and Failed the
	// items whose failure stood.
	Items, Retried, Failed int
}

// tag is the tag of the retry timer: the one tag the agent arms.
const tag = 1

// errPermanent is a failure that the agents configured with a Retry.If
// never retry.
var errPermanent = errors.New("permanent")

// Run decodes data into a configuration and at most maxSteps records,
// drives the agent a builds with them and drains it, and checks every
// message against the model; it reports the first broken promise to t.
func Run[S any, T any](t Failer, a Agent[S, T], data []byte, maxSteps int) Tally {
	if a.Same == nil {
		a.Same = func(x, y []agent.Effect) bool { return reflect.DeepEqual(x, y) }
	}
	in := fuzzin.New(data)
	m := newModel(t, a, in)
	for n := 0; in.More() && n < maxSteps && m.finishes == 0; n++ {
		m.step(in)
	}
	m.drain()
	return Tally{Messages: m.delivered, Items: len(m.items), Retried: m.retried, Failed: m.failedN}
}
