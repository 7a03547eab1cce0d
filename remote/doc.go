// Package remote runs a stage's work on worker processes, on this machine or
// others, that pull it from the stage over protoactor-go's remote (gRPC):
// the work-pulling pattern, with retries and resource routing.
//
// # Master and workers
//
// The master is an agent like any other: [New] starts it on its own, and
// [Stage] makes it a stage of a compose chain, in the place of a parallel
// stage, so that rate → remote → buffer works; both take a [Config]. It
// listens on a [Node], a host and port that [Listen] opens. A worker
// process calls [Work] with a [WorkerConfig] (the node's address, the
// stage's name, its number of slots, the tags of the resources it has) and
// the work function. It registers, asks for as many items as it has free
// slots (and for one more each time one ends), runs the work and sends the
// results back, several to a message when the work is quick. Since workers
// ask, no mailbox overflows, and a worker joins or leaves at any time.
//
// # Prefetch
//
// A slot whose work ends would wait a round trip to the master for its
// next item. So a worker also asks for up to [WorkerConfig.Prefetch] items
// beyond its slots (by default as many as it has slots), which wait on the
// worker for a slot, within what the master grants in its answer to the
// registration ([Config.MaxPrefetch], by default [DefaultMaxPrefetch]).
// The lease of an item that waits on its worker does not run while it
// waits: it starts when a slot of the worker frees for it, that is when
// the worker sends back a result of an item it held, or when the lease of
// one of its items expires (that work may never give its slot back). So a
// lease bounds one item's work wherever the item waited first, and a
// prefetched item is never failed for the time it spent in the line. A
// worker that said nothing for a whole lease, when one of its leases
// expires, may be stopped altogether: the items waiting for its slots are
// then queued again at once, with no attempt spent, and counted hung on it
// until their late results come. A
// worker a round trip r from its master whose work takes about t keeps its
// slots busy with a Prefetch of about Slots × r / t: through a round trip
// of 100 ms, 8 slots of 5 ms work do about 75 items/s without prefetch,
// and about as many as on the loopback with a prefetch of 256. Items that
// wait on a worker are not taken back for another that is idle: a large
// prefetch of slow work may leave some workers idle at the end of a
// stage.
//
// Items and results cross the wire as the bytes of a [Codec], [JSON] by
// default; the messages around them are protobuf, generated from one
// .proto in remote/internal/wire.
//
// # Failures
//
// The master watches every worker. A worker whose process dies, or whose
// connection breaks, is seen within milliseconds (protoactor's
// AddressTerminated), and its items are queued again at once. A worker
// that hangs, or is stopped, or a message that is lost, is caught by the
// item's lease ([Config.Lease]): the item is taken back and handed to
// another worker (or to a free slot of the same one). Each of these, and
// work that returns an error, is a failed attempt (but for an item that
// still waited on its worker for a slot, which is queued again with no
// attempt spent: see Prefetch); after
// [Config.MaxAttempts] the item fails with its last error, and its failed
// Result reaches the sink as a parallel agent's does. A worker whose
// context ends leaves gracefully: it hands back what it holds, and that is
// no failed attempt.
//
// # Hung work
//
// Suspicion is per item, not per worker. When an item's lease expires,
// the item is taken back, but its slot is not: the worker may still be at
// work on it, and counts that slot busy until the work returns. The master
// counts it too, in [WorkerStatus].Hung, and goes on handing the worker
// items for its other slots. When the work returns at last, its late
// result frees the slot, and counts if no other attempt's came first
// (otherwise it is dropped as a duplicate). A worker whose every slot is
// hung gets nothing: it counts as no worker, so that items no other worker
// may take wait for one, counted in [Status].Waiting, and after
// [Config.TagWait] fail with [ErrNoWorker], saying that every worker that
// may take them has all its slots hung. So a stage whose workers all hang
// on some items still finishes, and one where nothing can make progress
// fails with that error instead of waiting for ever.
//
// On the worker, [Work] returns at most [WorkerConfig.Grace] after its
// context ends (or the stage finished, or the master went), even if a work
// call ignores its context: the call is abandoned, to run on in its
// goroutine until it returns, its result dropped, and Work's error wraps
// [ErrAbandoned] and names its item. Exiting the process ends it.
//
// An item may need a resource, which [Config.Tag] names: it goes only to a
// worker that registered with that tag. While no such worker is registered
// it waits, counted in [Status].Waiting, and after [Config.TagWait] it
// fails with [ErrNoWorker].
//
// # Peers
//
// Whatever a peer sends a node cannot crash it, stop its actors, or change
// what is emitted: the node refuses calls and messages protoactor would
// panic on, system messages such as a PoisonPill or Stop, messages of other
// types than its own, and senders other than the node the connection said
// it is; the master counts a worker's message only from the worker it
// names, a result only from a worker the item was handed to (its last
// attempt, the one before, or one whose slot it hangs), and refuses a
// Register past
// [Config.MaxSlots]. Refusals are counted in [Status].Refused and logged.
//
// # Guarantees
//
// Each accepted item's result is emitted exactly once: the first result
// for an item wins, and later ones (from a worker whose lease expired and
// came back, say) are dropped and counted in [Status].Duplicates. The work
// itself runs at least once, and may run more than once for an item whose
// worker died or stalled after starting it: work with side effects needs
// an idempotency key. What is not guaranteed yet: the master keeps its
// queue in memory, so a crash of the master's process loses the items it
// has queued.
//
// # Status and errors
//
// The master's handle reports a [Status]: its agent.Load, a [WorkerStatus]
// for each registered worker, the items queued by tag, and its requeues,
// retries and duplicates. A setting out of range is an [ErrConfig]. An
// item's failed [Result] holds a [*WorkError], the error its work returned
// on a worker, or wraps [ErrWorkerLost], [ErrLeaseExpired] or
// [ErrNoWorker]; [Work] returns errors that wrap [ErrUnreachable],
// [ErrMasterGone] or [ErrAbandoned].
package remote
