package compose

import (
	"errors"
	"io"
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
	return func(opts *options) { opts.record = w }
}
