// Package book is the master of a remote stage as a pure function: its
// [Book] holds what the master knows (the items, their tasks and leases,
// the registered workers) and [Evolve] steps it by one message, returning
// what to do as data (tasks to dispatch, workers to expel, results to
// emit, timers to arm). It imports only package agent: time comes in the
// messages, and the master's actor (package master) performs the effects.
// Package remote's doc says what the stage promises; this package keeps
// those promises, and its tables and property test check them at made-up
// instants.
package book
