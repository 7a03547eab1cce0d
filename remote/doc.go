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
// The master watches every worker, and master and workers hear from each
// other at least once a heartbeat ([Config.Heartbeat], a second by
// default): items, results and asks count, and a worker with nothing else
// to say sends a beat, which the master answers. A worker whose process
// dies is seen within milliseconds (protoactor's AddressTerminated); one
// silent for three heartbeats (stopped, or cut off) is given up. The items
// of either are queued again at once, each as a failed attempt. Work that
// hangs while its worker still beats, or a message that is lost, is caught
// by the item's lease ([Config.Lease]): the item is taken back and handed
// to another worker (or to a free slot of the same one). Each of these,
// and work that returns an error, is a failed attempt (but for an item
// that still waited on its worker for a slot, which is queued again with
// no attempt spent: see Prefetch); after [Config.MaxAttempts] the item
// fails with its last error, and its failed Result reaches the sink as a
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
// the worker up and queues its items again, the worker gives the master up
// and tries to rejoin, and it does once the network heals. The partition
// may leave one side of a connection open and the other gone: a node then
// lets a peer's new connection take the place of its old one once the old
// one has been quiet for three heartbeats (the longest of its stages'),
// the time after which that peer has been given up anyway. A node's stop
// is bounded too: it waits half a second for its peers to close their
// connections gracefully, then closes them itself, so that a peer that was
// stopped or cut off does not hold it up.
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
// With [TLS] (the option [WithTLS] of [Listen], and [WorkerConfig].TLS),
// every connection between master and workers is mutual TLS: protoactor
// opens one from the master to each worker and one from each worker to
// the master, so every node is a TLS server and a client with one
// certificate, and trusts only the authority the user gives. A peer
// without a certificate that authority signed is refused by the TLS
// handshake, before anything it sends is read (it is not counted in
// [Status].Refused); a worker that the master refuses, or that does not
// trust the master's certificate, gets an error wrapping [ErrUnreachable]
// that says which. A node dialed at an address must present a
// certificate that names its host: workers dial the master at
// [WorkerConfig].Master, and the master dials each worker at the IP and
// port its node listens at ([WorkerConfig].Listen, its name resolved), so
// each certificate carries the IP its node listens at as an IP SAN, or
// every node's carries the one DNS name given as [TLS].ServerName. Each
// certificate must allow both server and client authentication. Without
// TLS, a node may listen, and a worker dial its master, only on the
// loopback, unless [AllowInsecure] (or [WorkerConfig].AllowInsecure) says
// that the network is trusted as a whole.
//
// With openssl, an authority, then a certificate for each node with the
// IP it listens at:
//
//	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 365 \
//	  -subj /CN=evolve-ca -keyout ca-key.pem -out ca.pem
//	openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj /CN=master \
//	  -keyout master-key.pem -out master.csr
//	printf 'subjectAltName=IP:10.0.0.5\nextendedKeyUsage=serverAuth,clientAuth\n' > master.ext
//	openssl x509 -req -in master.csr -CA ca.pem -CAkey ca-key.pem -days 365 \
//	  -extfile master.ext -out master.pem
//
// and alike for each worker. Go's crypto/x509 does the same
// (x509.CreateCertificate, with IPAddresses and ExtKeyUsage set).
//
// Authentication says who may connect, not what it may do: a peer with a
// certificate from the authority may register as a worker, is handed
// items (and sees them), and may return wrong results for them; the node
// address its connection says is its own is not tied to its certificate.
// Revoking one means a new authority, or a [TLS].Config that checks more.
// What follows holds for authenticated peers too. Whatever a peer sends a node
// cannot crash it, stop its actors, or change what is emitted: the node
// refuses calls and messages protoactor would panic on, system messages
// such as a PoisonPill or Stop, messages of other types than its own, and
// senders other than the node the connection said it is (a connection
// says it is a node only while no other live connection does, but that it
// may replace one quiet for three heartbeats, as above); the master
// counts a worker's message only from the worker it names, a result only
// from a worker the item was handed to (its last attempt, the one before,
// or one whose slot it hangs), and refuses a Register past [Config.MaxSlots]. Refusals are
// counted in [Status].Refused and logged.
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
// has queued and the results it has not emitted; durable queues are a
// separate feature, not built yet.
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
