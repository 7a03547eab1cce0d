// Package fair shares the starts of a stage's work among keys (clients,
// tenants) in proportion to their weights, charged by the time their work
// takes: deficit round robin (Shreedhar and Varghese, 1995), with time in
// the place of a packet's bytes.
//
// A [Queue] holds a line of items per key. The keys that have items
// waiting, backlogged, take turns in a ring; on its turn a key is credited
// a quantum times its weight, and its items start while its credit is
// positive, each charged what its key's items have taken on average (a
// new key's, what every key's have: the work's time is known only once
// it ends). When the item's work ends, [Queue.Done] charges the key the
// difference between what the work took and what was charged: a
// correction that moves its credit, but not the turn it may be in, which
// charges no more than the credit the key had as the turn began. A key whose
// credit is spent waits for its next turn; one whose line empties leaves
// the ring with no credit (a debt it keeps while its work is in flight)
// and joins its back when an item comes again. So a client of slow items gets no more of the workers'
// time than one of quick items, a key alone gets everything, and each key's
// items start in the order they came.
//
// # The bound
//
// Let Q be the quantum, L the longest an item's work takes, and S(k) the
// time charged to key k: what its items were charged as they started,
// and the corrections Done made. Over any span of time through which two
// keys i and j were both backlogged and no correction came for an item
// either started before it,
//
//	| S(i)/w(i) - S(j)/w(j) | <= Q + L/w(i) + L/w(j)
//
// that is, a backlogged key's work started is within one quantum and one
// item of its weighted share, over spans that begin as a turn does; a
// span cut part way through a turn may find one key up to a quantum
// further ahead at each end. A correction moves a key's charge by what
// its estimate missed, and the bound by as much, and a key's debt or
// credit from the misses of the items it started before the span is
// carried into it: the property tests measure both (here, in package
// parallel, whose test allows each key, over any span, what the guesses
// for its first items could miss by, and in the remote stage's book).
//
// # Cost
//
// Push and Done cost O(1). Pop costs O(1) but for a turn that finds every
// key's credit spent, which costs O(keys) to skip the turns that would
// start nothing. A key's accounts are kept while it has items queued or
// in flight, and forgotten after, with any debt; a forgotten key stays
// indexed for its next item, so that a key that comes and goes costs no
// index's insert and delete each time, until the forgotten keys outnumber
// the others by more than a thousand: a flood of one-off keys leaves a
// bounded number of accounts behind.
//
// A Queue is changed in place, and is not safe for concurrent use; Clone
// copies it. It does no I/O and reads no clock: time comes in its
// arguments.
package fair
