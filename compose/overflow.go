package compose

import (
	"fmt"
	"io"
	"time"

	"github.com/evolvekit/evolve/agent"
)

// Overflow is what a chain's Post does when the chain's first stage is
// full.
type Overflow int

const (
	// Block makes Post wait for room, honouring its context. The default.
	Block Overflow = iota
	// DropNewest makes Post drop the item it was given and return nil; the
	// drop is counted in [Status].
	DropNewest
	// DropOldest makes Post make room by dropping the oldest item waiting at
	// the head of the chain; the drop is counted in [Status]. The chain
	// gets one more stage, "overflow", in front of the first, holding up to
	// the first stage's bound.
	DropOldest
	// Fail makes Post return agent.ErrFull.
	Fail
)

// String returns the policy's name, as its option is spelled.
func (o Overflow) String() string {
	switch o {
	case Block:
		return "block"
	case DropNewest:
		return "drop-newest"
	case DropOldest:
		return "drop-oldest"
	case Fail:
		return "fail"
	}
	return fmt.Sprintf("Overflow(%d)", int(o))
}

// Option configures a chain at [Start].
type Option func(*options)

type options struct {
	overflow Overflow
	name     string
	dead     func(agent.DeadLetter)
	record   io.Writer // WithRecording's writer; nil records nothing
	// workers is the budget of WithWorkers, if shared; period that of
	// WithWorkersPeriod (see workers.go).
	workers int
	shared  bool
	period  time.Duration
}

// WithOverflow sets what Post does when the chain's first stage is full.
// Without it, Post blocks.
func WithOverflow(o Overflow) Option {
	return func(opts *options) { opts.overflow = o }
}

// WithDeadLetters hands f every item a stage of the chain gave up on (one
// that failed for good, after its retries), with its error and attempts,
// unless the stage has a dead-letter sink of its own. So every item the
// chain accepts ends once: as a value at the end, or as a dead letter. f is
// called in the rounds of the stage that gave up, so stages may call it at
// once; and Wait's error says how many items each stage gave up on.
func WithDeadLetters(f func(agent.DeadLetter)) Option {
	return func(opts *options) { opts.dead = f }
}

// WithName names the chain in its log events and errors; the default is
// "chain".
func WithName(name string) Option {
	return func(opts *options) { opts.name = name }
}
