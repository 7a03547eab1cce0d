// Package record writes the recording of a running chain and reads it
// back: every message each agent's evolve takes, with its instant, the
// effects evolve returned, and the status the agent ended with. Package
// replay's doc says what a recording holds and how values are written;
// this package is the codec behind it, the [Recorder] whose tapes the
// runtime's agents write their steps to (package internal/tape), and the [Reader] and
// [Decoder] a replay reads a recording with.
package record
