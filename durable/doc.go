// Package durable runs chains on a durable queue, on NATS JetStream, so
// that a crash of any process loses nothing the queue accepted (from the
// package example):
//
//	q, err := durable.Open[string](durable.Embedded{Dir: dir}, durable.Config{})
//	defer q.Close()
//	err = q.AddMany(ctx, entries) // from this process or another
//	upper, err := parallel.Stage(parallel.Config{Limit: 4}, durable.Map(func(_ context.Context, w string) (string, error) {
//		return strings.ToUpper(w), nil
//	}))
//	lines, err := buffer.Stage(buffer.Config[durable.Item[string]]{Size: 3}, nil)
//	chain, err := compose.Start(rt, compose.Pipe2(upper, lines), durable.Batches(q, func(line []durable.Item[string]) error {
//		...
//	}), compose.WithDeadLetters(q.DeadLetters))
//	err = durable.Consume(ctx, q, chain, durable.WithUntilEmpty())
//
// Each item reaches the sink or the dead letters at least once, and is
// acknowledged only then, so an item whose process dies first is handed
// out again; at a sink idempotent by key (one that writes each item under
// its key, and skips a key it has), each item's effect is seen once. An
// entry added again under a key the queue has had within Config.Dedupe is
// not a second item. Several processes may run the same chain on one
// queue and share its items, and a rate limit too.
//
// A queue lives in a [Store]. [Embedded] runs a NATS server in the
// process, which keeps the queue in a directory: nothing else is needed.
// [Server] reaches the NATS servers at a URL: a cluster, with replicas,
// when one machine is not enough. Each holds the settings that are its
// own; [Config] those of the queue, the same on both, and the rest of the
// code does not change.
//
// # Tickets
//
// A chain on a queue carries [Item]s: each value with its key and a
// ticket ([Item].Ticket), the number by which the process that holds the item names it
// until it lets the item go (acknowledged, sent to the dead letters, or
// handed back). Stages pass items on as they are; work on values is lifted to
// work on items with [Map], so what an item becomes keeps its ticket; a
// buffer's batches are slices of items. The sink acknowledges an item once
// what came of it has reached the sink ([Sink], or [Batches] for a
// buffer's batches), and the chain's dead letters acknowledge it once it
// is in the queue's dead letters ([Queue.DeadLetters]), or a dead-letter
// sink of the chain's own took it ([DeadLetterSink]). Nothing inside an
// evolve function knows of tickets: they travel in the values.
//
// # Guarantees
//
// Those above; and the re-work after a crash is bounded by what the
// process held: the chain's Bound and one fetch (and, with fair keys, the
// keys' lines). Other processes on an embedded queue (Embedded.Listen)
// may work again, besides, what they had acknowledged in its server's
// last 100 ms, when the process that runs the server dies.
//
// An embedded queue that opens again after a crash hands out at once what
// the dead process held. A process that holds an item renews its lease
// (Config.Lease, 5 s) while it runs, so items of a process that died while
// others run on the same queue come back within a lease.
//
// # Keys
//
// Each item is added under a key, and a key the queue has had within
// Config.Dedupe, counted from the item's first add, is not a second item:
// adding it again adds nothing, whether its item still waits, was
// consumed (acknowledged, or sent to the dead letters), or the queue's
// servers restarted in between: an embedded queue closed and opened
// again, a process killed inside [Queue.AddMany], a NATS server at a URL
// restarted. So a producer that died adds all its entries again, and only
// those the queue did not have become items: a crash adds no item twice,
// and what it may repeat is work on what a chain held (above).
//
// JetStream rebuilds its dedupe as it restarts from the messages a stream
// holds, so the queue keeps an item in its stream, acknowledged, until its
// key's window has ended (swept every quarter window, at most a minute):
// the item is its own key's marker, and the store holds a window's worth
// of consumed items beside those waiting (at 10,000 items of 1 KB a
// second, 2 minutes hold 1.2 GB). A queue with fair keys, whose stream
// is a work queue, writes instead a marker for each item it hands out,
// before it lets go of it: a message on the subject <name>.keys.<first
// 128 bits of the key's SHA-256, in hex>, with a TTL that ends with the
// window (in whole seconds, from the clock of the process that hands the
// item out); the server stores an item only if its key has none, and
// [Consume] carries 0.4 to 0.5 times as many items a second. The window
// is counted by the time the server stamped on the item. A key added
// again past its window while its item still waits is a second item. Keys
// are kept as long as the store keeps what it confirmed. A stream keeps
// the kind it was made with: a queue made by an earlier version (a work
// queue) keeps markers, and one made without fair keys cannot take them
// ([Open] returns an ErrConfig).
//
// # Several processes
//
// Two or more processes running the same chain on one queue share its
// items: each item goes to one of them and is acknowledged once (an
// embedded queue with Embedded.Listen lets the others reach it at
// [Queue.URL]). The queue, its dead letters and its dedupe window are
// shared; everything about a chain is per process: a parallel stage's
// limit, the chain's Bound, and a rate stage's bucket, unless the stage
// takes its tokens from a limit all of them share (Limits, below): two
// processes each with a rate stage of 100 a second of their own make 200 a
// second at the API.
//
// # Fair keys
//
// With Config.Key, each item has a fair key besides its key (a client, a
// tenant: Key names it from the item's key), and [Consume] takes turns
// among the fair keys with items waiting, so that one client's 100,000
// items do not hold back another's ten. Each key's items start in
// proportion to its weight (Config.Weights, 1 by default), charged by the
// time each takes from its fetch to its acknowledgement; between two keys
// with items waiting, the time started per unit of weight differs by at
// most Config.Quantum and the longest item over each key's weight:
// within one quantum and one item of its share. The chain's Bound is not
// split among the keys: what it holds comes in their turns, so a key
// alone fills it, and a key of slow items holds more of it for fewer
// starts. The process holds, besides, up to twice the fetch size fetched
// in the keys' lines. Items without a fair key are one key more, "".
//
// Each fair key's items are on a subject and a consumer of their own
// (docs/durable-fair.md says which, and what they cost).
//
// # Limits
//
// [Queue.Limit] returns a rate limit that every process reaching the
// queue's servers shares: a rate stage given it (rate.Config.Shared), in
// each of them, takes its share. Over any window of length t, the items
// let through together number at most burst + rate·t, whatever happens
// to the processes, the network or the servers: it fails closed
// (docs/durable-limits.md says how, and what it costs).
//
// # Clusters
//
// On a [Server] whose URL lists the servers of a NATS cluster, with
// Replicas 3, the queue's streams and its consumer each have three
// copies: a chain goes on through the loss of a server. A queue takes
// what a NATS user has: user and password, TLS certificates (mutual TLS:
// mtls.Load), or a creds file. docs/durable-clusters.md says what a
// cluster that loses servers, or its majority, does to a chain, and what
// each kind of credential needs.
//
// # Dead letters
//
// The dead letters are a stream of their own, named after the queue with
// "_dead", that any NATS client reads. Each holds the item's bytes as
// they were added, and says in headers its key (Evolve-Key), why it
// failed (Evolve-Error), after how many attempts (Evolve-Attempts), and,
// if a panic failed it, in work or in a sink, the stack of the goroutine
// that panicked (Evolve-Stack, a value a line: a header value is one).
//
// An item that failed for want of anything to work on it, not for
// anything it is or did (its error matches agent.ErrUnavailable, as a
// remote stage's ErrNoWorker does when no worker may take it), is no dead
// letter: [Queue.DeadLetters] and [DeadLetterSink] hand it back to the
// queue, to be handed out again after a backoff, and that delivery spends
// none of its attempts (as counted by this process: one restarted counts
// it).
//
// # Large items
//
// An item whose bytes are more than Config.MaxInline (a megabyte less 8
// KiB, by default) is stored apart, in the Object Store bucket Name +
// "_payloads", and its message names the object and the SHA-256 of its
// bytes; a chain sees no difference. The object is stored before the
// message, checked as it is read back (a missing or altered one sends its
// item to the dead letters), and deleted only once its item's
// acknowledgement is confirmed. See docs/large-payloads.md.
//
// # What the disk keeps
//
// By default the NATS server hands each message to the operating system at
// once and syncs its files to the disk every two minutes: a crash of the
// process, the master's included, loses nothing the queue confirmed; a
// power loss, or a crash of the operating system, may lose what was
// written since the last sync. Embedded.Sync syncs every write, at a
// large cost in speed. A cluster with Server.Replicas guards against the
// loss of a machine. NATS has limits of its own: Jepsen's analysis of
// NATS 2.12.1 (December 2025) found acknowledged writes lost under
// coordinated power failure, or an OS crash combined with partitions or
// pauses, partly because of the two-minute default. Keep the directory on
// a disk you trust, and replicas on a cluster for what matters.
//
// # A damaged store
//
// An embedded store that lost items since its last Close makes [Open]
// return an ErrDamaged; docs/durable-damage.md says how it is found and
// what to do.
//
// # Moves
//
// A remote stage whose Config.OnMove is [Queue.Moved] keeps in the queue
// the state of each move its master takes: an item redelivered after a
// crash comes with it as its Value, its Tag and Moves (for the stage's
// Config.Tag and Config.Moves), key, dedupe and attempts its own; [Map]
// carries a move with the item (docs/moves.md).
//
// # An item that kills its process
//
// A queue on a [Server] counts an item's attempts in its consumer, which
// outlives any process: an item held by a process that died comes back
// when its lease ends, and that delivery spends an attempt. An embedded
// queue starts its consumer again at each open, which forgets those
// counts (and may have lost its last 100 ms of acknowledgements, which
// the files record), so it counts what crashes cost in files beside its
// store. A run that dies holding items makes suspects of
// them, and charges none: most of what a process holds when it dies did
// not kill it. The next run works on each suspect alone: [Map] runs no
// other work of the process beside it. A death then is the suspect's, and
// spends one of its attempts; after Config.MaxAttempts of them, it goes to
// the dead letters, and the run goes on. An item that kills its process
// outside work lifted with Map, in a sink say, is not found this way, and
// is tried at every restart.
//
// # Drops
//
// A chain whose overflow policy drops or fails items (compose.WithOverflow
// other than Block) is refused by [Consume]: an item it dropped would be
// neither done nor handed back. An item the chain's Post refuses (a check
// its first stage makes of each, such as a rate stage's Cost) goes to the
// dead letters at once: it would be refused again. An item a later stage
// drops for a reason of its own, or fails in a chain without a dead-letter
// sink that acknowledges ([Queue.DeadLetters], [DeadLetterSink]), is not
// acknowledged: it goes back to the queue when Consume ends, and is tried
// again, up to Config.MaxAttempts, after which it goes to the dead
// letters.
package durable
