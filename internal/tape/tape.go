// Package tape says what an agent of a recorded chain writes its steps to:
// package internal/cell writes them, package internal/record keeps them,
// and package replay reads them back.
package tape

import (
	"time"

	"github.com/evolvekit/evolve/agent"
)

// Tape is where one agent of a recorded chain writes down its steps. The
// agent's cell calls it on its own goroutine only, in this order: for each
// message, Before as evolve is about to take it and After with the effects
// evolve returned (no After when evolve panicked); then Final, once, with
// the status the agent ends with; then Close.
type Tape interface {
	// Before records m, stamped, as the agent's next step.
	Before(m agent.Msg)
	// After records the effects evolve returned for the step's message.
	After(fx []agent.Effect)
	// Final records the status evolve gave at instant at; ok is false
	// when it gave none.
	Final(at time.Time, status any, ok bool)
	// Close says the agent has ended: nothing more is recorded.
	Close()
}
