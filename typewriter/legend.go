package main

// entry is a line of the legend: a word or figure the screen shows, and
// what it means.
type entry struct{ term, means string }

// legend says what each word and figure on the screen means, in the order
// the screen shows them: the agents' status lines, the counts line, the
// header, the time elapsed and the log. The work agent's words depend on
// -p: a parallel agent's limit is -p, an adaptive one's is learnt.
func legend(cfg config) []entry {
	limit := entry{"limit", "the most keys worked on at once, -p"}
	keysPerSecond := entry{"keys/s", "the rate agent's pace, -r: the tokens it gains a second"}
	if cfg.parallel.auto {
		limit = entry{"limit", "keys worked on at once, learnt between the bounds; then what it does"}
		keysPerSecond = entry{"keys/s", "the rate agent's pace, -r; adaptive: the keys it has done a second"}
	}
	return []entry{
		{"queued", "keys an agent took in and has not started on (the buffer's: to flush)"},
		{"in flight", "keys being worked on, for --work-delay each"},
		{"tokens", "0.56/1: the rate agent's bucket; each key let through spends 1 token"},
		keysPerSecond,
		limit,
		{"held", "keys worked on, waiting for the keys before them, or for room"},
		{"line", "4/10: keys in the open line, of -b a line; a full line is a batch"},
		{"flushing", "keys of the line being written to the file, for --flush-delay"},
		{"flushed", "lines written to the file"},
		{"done", "keys an agent has passed on; failed: keys whose work failed"},
		{"demand", "keys it may pass on now; at 0 it waits for room; unbounded: no limit"},
		{"typed", "keys typed; through the rate agent: let through; in the file: written"},
		{"waiting", "to enter the chain: keys typed it has no room for yet; none is lost"},
		{"on top", "the flags: rate -r, parallel -p, buffer -b, work and flush delays"},
		{"elapsed", "the time since the typewriter started"},
		{"log", "events (INF: info); Enter logs every agent's status, in chain order"},
	}
}
