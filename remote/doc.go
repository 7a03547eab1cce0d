// Package remote runs a stage's work on worker processes, on this machine or
// others, that pull it from the stage over protoactor-go's remote (gRPC):
// the work-pulling pattern, with retries and resource routing. A master,
// from the package example:
//
//	node, err := remote.Listen(remote.NodeConfig{Addr: "127.0.0.1:7070"})
//	defer node.Close()
//	rt := agent.NewRuntime()
//	defer rt.Shutdown(context.Background())
//	h, err := remote.New[int, int](rt, remote.Config[int]{Node: node, Name: "double"},
//		func(r remote.Result[int]) { fmt.Println(r.Seq, r.Value, r.Err) })
//	err = h.Post(context.Background(), i)
//	h.Close()
//	err = h.Wait(context.Background())
//
// and a worker process that works for it, from the Work example:
//
//	err := remote.Work(context.Background(), remote.WorkerConfig{Master: "127.0.0.1:7070", Stage: "double", Slots: 8},
//		func(ctx context.Context, v int) (int, error) { return 2 * v, nil })
//
// Each item the master accepts has its result emitted exactly once: the
// first outcome that succeeded, or its last error after Config.MaxAttempts.
// Its work runs at least once, and more than once if a worker dies or
// stalls on it, so work with side effects needs an idempotency key.
// Workers ask for work, so no mailbox overflows, and they join and leave
// at any time; the tasks of one that dies, hangs or falls silent go to
// another. Without TLS, nodes speak only on the loopback, unless
// AllowInsecure says the network is trusted. The master keeps
// its items in memory, so a crash of its process loses them unless the
// stage is fed by a durable queue. The rest of this doc says how, and
// where each promise ends.
//
// # Master and workers
//
// The master is an agent like any other: [New] starts it on its own, and
// [Stage] makes it a stage of a compose chain, in the place of a parallel
// stage, so that rate → remote → buffer works; both take a [Config]. It
// listens on a [Node], a host and port that [Listen] opens. A worker
// process calls [Work] with a [WorkerConfig] (the node's address, the
// stage's name, its number of slots, the tags of the resources it has) and
// the work function. It registers, asking with it for as many items as it
// has room for (and for one more each time one ends), runs the work and sends the
// results back, several to a message when the work is quick. Since workers
// ask, no mailbox overflows, and a worker joins or leaves at any time.
//
// An item is what the stage accepted, numbered by its Seq from 0. A task
// is one attempt at an item, handed to one worker; its outcome is what the
// attempt came to, a value or an error. The item's [Result], emitted once,
// is the first outcome that succeeded, or its last error. Items and values
// cross the wire as the bytes of a codec.Codec, codec.JSON by default; the
// messages around them are protobuf, generated from one .proto in
// remote/internal/wire.
//
// # Prefetch
//
// A slot whose work ends would wait a round trip to the master for its
// next task. So a worker also asks for up to [WorkerConfig.Prefetch] tasks
// beyond its slots (by default as many as it has slots), which wait on the
// worker for a slot, within what the master grants as it registers
// ([Config.MaxPrefetch], by default [DefaultMaxPrefetch]). The lease of a
// task that waits on its worker does not run while it waits: it starts
// when a slot of the worker frees for it, that is when the worker sends
// back an outcome of a task it held, or when the lease of one of its
// tasks expires (that work may never give its slot back). So a lease
// bounds one task's work wherever it waited first, and a prefetched task
// is never failed for the time it spent in the line. A worker that said
// nothing for a whole lease, when one of its leases expires, may be
// stopped altogether: the tasks waiting for its slots are then queued
// again at once, with no attempt spent, and counted hung on it until their
// late outcomes come. A worker a round trip r from its master whose work
// takes about t keeps its slots busy with a Prefetch of about Slots × r /
// t: through a round trip of 100 ms, 8 slots of 5 ms work do about 75
// items/s without prefetch, and about as many as on the loopback with a
// prefetch of 256. Tasks that wait on a worker are not taken back for
// another that is idle: a large prefetch of slow work may leave some
// workers idle at the end of a stage.
//
// # Failures
//
// Master and workers hear from each other at least once a heartbeat
// ([Config.Heartbeat], a second by default, which workers learn as they
// register): tasks, outcomes and asks count, and a worker with nothing
// else to say sends a beat, which the master answers. Three heartbeats of
// silence are the one rule of liveness, on both sides: the master gives up
// a worker it has not heard from for three heartbeats, a worker its master
// likewise, and a node lets a peer's new connection replace its old one
// once that has been quiet for three heartbeats (the longest of its
// stages'). Everything below that says "given up" or "lost" for silence
// means this rule.
//
// The master watches every worker. A worker whose process dies is seen
// within milliseconds (protoactor's AddressTerminated); one silent for
// three heartbeats (stopped, or cut off) is given up. The tasks of either
// are queued again at once, each as a failed attempt. Work that hangs
// while its worker still beats, or a message that is lost, is caught by
// the task's lease ([Config.Lease]): the item is taken back and handed to
// another worker (or to a free slot of the same one). Each of these, and
// work that returns an error, is a failed attempt (but for a task that
// still waited on its worker for a slot, which is queued again with no
// attempt spent: see Prefetch); after [Config.MaxAttempts] the item fails
// with its last error, and its failed Result reaches the sink as a
// parallel agent's does. A worker whose context ends leaves gracefully: it
// hands back what it holds, and that is no failed attempt.
//
// A worker that loses its master (a connection between them breaks either
// way, it hears nothing for three heartbeats, or the master says it no
// longer knows it) does not exit: it cancels the work it holds, which the
// master queues again, and registers anew, with backoff, for up to
// [WorkerConfig.Rejoin] (a minute by default), and [Work] returns
// [ErrMasterGone] only once that has passed. It rejoins a master restarted
// at the same address as well: each run of a stage draws a random
// incarnation that every message names, so that nothing a worker did for
// one run is taken for the same item number of the next.
//
// A network partition that drops everything between a master and a worker
// without closing their connections is, to each, silence: the master gives
// the worker up and queues its tasks again, the worker gives the master up
// and tries to rejoin, and it does once the network heals. A node's stop
// is bounded too: it waits half a second for its peers to close their
// connections gracefully, then closes them itself, so that a peer that was
// stopped or cut off does not hold it up.
//
// # Hung work
//
// Suspicion is per task, not per worker: a task whose lease expires is
// taken back, but its slot stays busy until its work returns
// ([WorkerStatus].Hung); a worker whose every slot is hung counts as no
// worker, so items only it could take fail after [Config.TagWait] with
// [ErrNoWorker], and a durable queue hands them back. A worker whose every
// slot has run one task for longer than the lease is wedged, and says so
// in its log, at [WorkerConfig].Health, and, with
// [WorkerConfig].EndWhenWedged, by ending [Work] with [ErrWedged]. Work
// returns at most [WorkerConfig.Grace] after its context ends, abandoning
// a call that ignores it ([ErrAbandoned]). The module's docs/hung-work.md
// says more.
//
// # Moves
//
// Work that finds half way that it needs a resource another worker holds
// returns, as its error, [Move](tag, next): next, the state it reached,
// crosses the codec (a value, never a closure), and the item goes on from
// it on a worker with tag. The master ends the lease, spends no attempt,
// and queues the item for tag ahead of the newer items; a worker that
// holds tag goes on at once. [Result].Path lists each step, [Status].Moves
// counts the moves; past [Config.MaxMoves] the item fails with
// [ErrMoves], naming its path. Only the state of the last move the master
// took survives a worker's death. The module's docs/moves.md says more.
//
// # Peers
//
// With TLS ([NodeConfig].TLS and [WorkerConfig].TLS, a *tls.Config that
// package mtls loads from three PEM files), every connection between
// master and workers is mutual TLS: protoactor opens one from the master to
// each worker and one from each worker to the master, so every node is a
// TLS server and a client with one certificate, which must allow both
// server and client authentication, and trusts only the authorities the
// configuration names. A peer without a certificate they signed is refused
// by the TLS handshake, before anything it sends is read (it is not
// counted in [Status].Refused); a worker that the master refuses, or that
// does not trust the master's certificate, gets an error wrapping
// [ErrUnreachable] that says which. A node dialed at an address must
// present a certificate that names its host: workers dial the master at
// [WorkerConfig].Master, and the master dials each worker at the IP and
// port its node listens at ([WorkerConfig].Listen, its name resolved), so
// each certificate carries the IP its node listens at as an IP SAN, or
// every node's carries the one DNS name set as the configuration's
// ServerName. Listen's example shows the recipe. Without TLS, a node may
// listen, and a worker dial its master, only on the loopback, unless
// AllowInsecure (of [NodeConfig], or [WorkerConfig]) says that the network
// is trusted as a whole. Settings are checked before anything listens.
//
// Authentication says who may connect, not what it may do: a peer with a
// certificate from the authority may register as a worker, is handed
// tasks (and sees their items), and may return wrong values for them; the
// node address its connection says is its own is not tied to its
// certificate. Revoking one means a new authority, or a configuration
// that checks more (VerifyPeerCertificate). What follows holds for
// authenticated peers too. Whatever a peer sends a node cannot crash it,
// stop its actors, or change what is emitted: the node refuses calls and
// messages protoactor would panic on, system messages such as a PoisonPill
// or Stop, messages of other types than its own, and senders other than
// the node the connection said it is (a connection says it is a node only
// while no other live connection does, but that it may replace one quiet
// for three heartbeats); the master counts a worker's message only from
// the worker it names, an outcome only from a worker the task was handed
// to (its last attempt, the one before, or one whose slot it hangs), and
// refuses a Register past [Config.MaxSlots]. Refusals are counted in
// [Status].Refused and logged, at most once a second: the master's to its
// runtime's logger, a worker's to [WorkerConfig].Log.
//
// # Behind a rate stage
//
// In a chain, a rate stage before a remote stage paces the tasks' starts
// on the workers, not merely the stage's intake: the stage then takes an
// item only as a worker has a slot free for it ([Status].Paced), and
// grants no prefetch. The module's docs/remote-paced.md says how, and what
// it costs.
//
// # Scaling on the backlog
//
// The stage says, for the items of each tag, how many workers it wants:
// ceil((λ·S + queued·S/Drain) / c), from the rate λ its items arrive at,
// the time S a task holds a slot, and the mean slots c of its workers
// (Little's law, plus what drains the queue within [Config.Drain]), never
// 0 while an item of the tag is queued or leased: in [Status].Want, the
// gauge evolve.desired_workers, and [Config.OnWant]. The module's
// docs/autoscaling.md says how it is measured and followed.
//
// # Fair shares
//
// With [Config.Key], each item names its key (a client, a tenant), and
// among the keys with items waiting, work starts in proportion to their
// [Config.Weights], charged by the time it takes (deficit round robin); a
// Key needs Unordered; Post lets a key hold [Config.KeyQueue] of the
// Queue. The module's docs/fair-shares.md gives the bound and its
// measures.
//
// # Large items
//
// A message between master and workers carries at most the smaller
// [NodeConfig].MaxMessage and [WorkerConfig].MaxMessage; an item, result
// or next input too large for one fails its attempts, naming its Seq, size
// and bound ([ErrTooLarge]): see the module's docs/large-payloads.md.
//
// # Status and errors
//
// The master's handle reports a [Status]: its agent.Load (the snapshot of
// its queue and work in flight that every status embeds), a [WorkerStatus]
// for each registered worker, the items queued by tag, the workers wanted
// by tag, with keys the items waiting and started by key, and its
// requeues, retries and duplicates (later outcomes of an item with a
// result, dropped). A setting out of range is an [ErrConfig]. An
// item's failed [Result] holds a [*WorkError], the error its work returned
// on a worker, or wraps [ErrWorkerLost], [ErrLeaseExpired] or
// [ErrNoWorker] or [ErrTooLarge]; [Work] returns errors that wrap [ErrUnreachable],
// [ErrMasterGone], [ErrWedged] or [ErrAbandoned].
package remote
