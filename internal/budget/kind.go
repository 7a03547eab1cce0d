package budget

import (
	"time"

	"github.com/evolvekit/evolve/adaptive"
	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/parallel"
)

// Kind is the kind of a stage, as a budget sees it: one it shares workers
// among, by the package that made it, or None.
type Kind uint8

// The kinds of stages.
const (
	// None is a stage a budget leaves alone: a rate or buffer stage, say.
	None Kind = iota
	// Parallel is a parallel stage: its limit is set with a
	// parallel.Limit.
	Parallel
	// Adaptive is an adaptive stage: its limit is set with an
	// adaptive.Limit, within its Min and Max, and its controller carries
	// on from there.
	Adaptive
)

// Read returns what status, taken at instant at, tells a budget, and the
// kind of stage it comes from: a parallel.Status or an adaptive.Status. It
// returns the zero Reading and None for any other status.
func Read(at time.Time, status any) (Reading, Kind) {
	switch st := status.(type) {
	case parallel.Status:
		return reading(at, st), Parallel
	case adaptive.Status:
		return reading(at, st.Status), Adaptive
	}
	return Reading{}, None
}

// reading returns what st says at instant at.
func reading(at time.Time, st parallel.Status) Reading {
	return Reading{At: at, Queued: st.Queued, Busy: st.Batches, Done: st.Done, Limit: st.Limit}
}

// Message returns the message that sets the limit of a stage of kind k to
// n, stamped at: an agent.Set of parallel.Limit or of adaptive.Limit. It
// returns nil for None.
func Message(k Kind, at time.Time, n int) agent.Msg {
	switch k {
	case Parallel:
		return agent.Set[parallel.Limit]{At: at, Value: parallel.Limit(n)}
	case Adaptive:
		return agent.Set[adaptive.Limit]{At: at, Value: adaptive.Limit(n)}
	}
	return nil
}
