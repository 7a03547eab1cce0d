// Package trace follows each item through the agents of a chain as
// OpenTelemetry spans, for a runtime given a TracerProvider: a span of the
// item's life in each agent (from accepted to passed on), a child span of
// each attempt of its work, and its failure (a dead letter) marked on it.
// Nothing here runs inside an evolve: the runtime (package cell) calls it
// as items arrive, work starts and values leave, and a runtime without a
// provider holds none of it.
//
// An agent's outputs are not tagged with the inputs they came from, so a
// [Line] keeps, for each agent, the spans of the items it accepted in the
// order it accepted them, numbered by their Seq, and the agent's [Follow]
// says how its work and its values map onto them: by Seq (a parallel
// agent's Starts and Results), as a batch of the oldest (a buffer), or one
// for one in order (the default). A [Hand] carries the span contexts of the
// values one agent passes on to the next, in step with the values, through
// the conversions between them.
package trace
