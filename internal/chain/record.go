package chain

import (
	"context"
	"fmt"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/internal/core"
	"github.com/evolvekit/evolve/internal/record"
)

// startRecorder starts the Recorder of a chain that records, for the
// agents s runs but the overflow gate in front of them; it returns the
// Recording the chain's agents record to (the zero one when the chain
// does not record).
func startRecorder[I, O any](o Options, clock agent.Clock, s core.Stage[I, O]) (*record.Recorder, core.Recording) {
	if o.Record == nil {
		return nil, core.Recording{}
	}
	first := 0
	if o.Gate {
		first = -1
	}
	agents := s.Plan().Agents[-first:]
	names := make([]string, len(agents))
	for i, a := range agents {
		names[i] = a.Name
	}
	rec := record.New(o.Record, clock.Now(), names)
	return rec, rec.From(first)
}

// abandon lets go of the Recorder of a chain that failed to start, once it
// has written what it was handed.
func abandon(rec *record.Recorder) {
	if rec != nil {
		rec.Abandon()
		<-rec.Done()
	}
}

// seal counts the chain's Recorder as one more thing the chain's Done
// waits for, and seals it: every agent has started. Its error, if any,
// will be wrapped in failed.
func (c *Chain[I]) seal(rec *record.Recorder, failed error) {
	if rec == nil {
		return
	}
	c.rec, c.recFailed = rec, failed
	c.left.Add(1)
	rec.Seal()
	rec.WhenDone(c.memberDone)
}

// awaitRecording waits until the chain's recording is written; it returns
// ctx's error if ctx ends first.
func (c *Chain[I]) awaitRecording(ctx context.Context) error {
	if c.rec == nil {
		return nil
	}
	select {
	case <-c.rec.Done():
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// recordingErr returns the error of the chain's recording, once written.
func (c *Chain[I]) recordingErr() error {
	if c.rec == nil {
		return nil
	}
	if err := c.rec.Err(); err != nil {
		return fmt.Errorf("%w: %w", c.recFailed, err)
	}
	return nil
}
