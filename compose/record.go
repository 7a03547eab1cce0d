package compose

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/internal/bridge"
	"github.com/evolvekit/evolve/internal/core"
	"github.com/evolvekit/evolve/internal/record"
)

// ErrRecording is what the error of a chain's Wait wraps when the chain
// could not write its recording (see [WithRecording]): w failed, or a
// value could not be recorded. The chain itself runs on regardless.
var ErrRecording = errors.New("compose: recording failed")

// WithRecording records to w, as JSON lines, every message each stage's
// evolve takes, with its instant, the effects evolve returned and the
// status each stage ends with, so that replay.Run can feed the same
// messages to the same evolve functions and check that they give the same
// effects again; package replay's doc says what a recording holds.
//
// Each stage encodes its steps in its own rounds and hands them to a
// goroutine of the chain's, which writes them to w (so w need not be safe
// for concurrent use); a stage waits only while more than 4 MiB wait for
// w. Wait returns once everything is written, with an error wrapping
// [ErrRecording] if w failed or a value could not be recorded; the chain
// runs on either way. Recording costs the encoding of every message and
// effect, about as much again as the chain's own work per item in
// BenchmarkChain; a chain that does not record pays nothing for it. A nil
// w records nothing.
func WithRecording(w io.Writer) Option {
	return func(opts *options) { opts.record = recording{w} }
}

// recording is WithRecording's writer; its zero value records nothing.
type recording struct {
	w io.Writer
}

// startRecorder starts the Recorder of a chain that records, for the
// agents st runs but the overflow gate in front of them; it returns the
// Recording the chain's stages record to (the zero one when the chain
// does not record).
func startRecorder[I, O any](o options, rt *agent.Runtime, st core.Stage[I, O]) (*record.Recorder, core.Recording) {
	if o.record.w == nil {
		return nil, core.Recording{}
	}
	first := 0
	if o.overflow == DropOldest {
		first = -1
	}
	agents := st.Plan().Agents[-first:]
	names := make([]string, len(agents))
	for i, a := range agents {
		names[i] = a.Name
	}
	rec := record.New(o.record.w, bridge.Runtime(rt).Clock.Now(), names)
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
// waits for, and seals it: every stage has started.
func (c *chain[I]) seal(rec *record.Recorder) {
	if rec == nil {
		return
	}
	c.rec = rec
	c.left.Add(1)
	rec.Seal()
	rec.WhenDone(c.memberDone)
}

// awaitRecording waits until the chain's recording is written; it returns
// ctx's error if ctx ends first.
func (c *chain[I]) awaitRecording(ctx context.Context) error {
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
func (c *chain[I]) recordingErr() error {
	if c.rec == nil {
		return nil
	}
	if err := c.rec.Err(); err != nil {
		return fmt.Errorf("%w: %w", ErrRecording, err)
	}
	return nil
}
