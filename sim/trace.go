package sim

import (
	"bufio"
	"fmt"
	"io"
	"time"
)

// Sample is the state of a simulation at one instant of virtual time.
type Sample struct {
	// At is the virtual time since the start.
	At time.Duration
	// Limit is the agent's concurrency limit, as [Chain.Limit] reads it
	// (0 without one).
	Limit int
	// InFlight counts the work started and not yet done.
	InFlight int
	// Queued counts the items in the agent's input queue: handed to it and
	// not yet given back with Demand.
	Queued int
	// Backlog counts the items that arrived but wait outside the agent for
	// a free input slot.
	Backlog int64
	// Started counts the work started so far, Done the work finished, and
	// Emitted the values the agent emitted.
	Started, Done, Emitted int64
}

// Trace is the samples a run recorded, at a fixed period, in time order.
type Trace []Sample

// WriteCSV writes t as comma-separated values with a header line: at (in
// nanoseconds), limit, in_flight, queued, backlog, started, done, emitted.
// Two runs with the same seed and settings write the same bytes.
func (t Trace) WriteCSV(w io.Writer) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, "at,limit,in_flight,queued,backlog,started,done,emitted")
	for _, s := range t {
		fmt.Fprintf(bw, "%d,%d,%d,%d,%d,%d,%d,%d\n",
			int64(s.At), s.Limit, s.InFlight, s.Queued, s.Backlog, s.Started, s.Done, s.Emitted)
	}
	return bw.Flush()
}
