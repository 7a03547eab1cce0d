// Package chain starts a chain from a core.Stage: the stage's agents,
// linked and wired to a sink, with what a chain puts around them as its
// [Options] ask: the overflow gate in front (compose's DropOldest), a
// recording of every step of its agents, a budget of workers shared among
// those that share them. [Start] does it in one call, and the [Chain] it
// returns is what package compose's handle wraps: compose checks the
// options a program gives and says what they mean; this package carries
// them out, and reaches the runtime's clock and logger through package
// bridge.
package chain
