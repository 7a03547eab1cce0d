// Package budget shares a chain's workers among the stages that share
// them, so that the workers follow the bottleneck.
//
// [Allocate] is the rule: the highest-averages method of Jefferson and
// D'Hondt, over each stage's queue length times its mean service time.
// [Estimate] estimates a stage's service time from the counters its status
// holds, smoothed by a [Mean]. A stage that shares workers declares, in a
// [Share], how its status reads as those counters and the message that
// sets its limit; the machinery asks it, and knows no particular stage.
// A stage behind a pacer keeps its backlog in the pacer's queue, which
// [Paced] counts as its own.
// Everything here is pure: the drivers of a budget read the statuses on a
// period, allocate, and set the stages' limits.
package budget
