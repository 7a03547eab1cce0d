// Package budget shares a chain's workers among its parallel and adaptive
// stages, so that the workers follow the bottleneck.
//
// [Allocate] is the rule: the highest-averages method of Jefferson and
// D'Hondt, over each stage's queue length times its mean service time.
// [Stage] estimates a stage's service time from the counters its status
// holds, smoothed by a [Mean], and [Read] reads those counters from a
// parallel.Status or an adaptive.Status. Everything here is pure: the
// drivers (compose's chains, sim's runs) read the statuses on a
// period, allocate, and set the stages' limits.
package budget
