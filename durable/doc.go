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
// keys' lines).
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
// JetStream forgets an acknowledged item's key as it restarts, so the
// queue writes a marker for each item it hands out, before it lets go of
// the item: a message of its own stream, on the subject
// <name>.keys.<first 128 bits of the key's SHA-256, in hex>, with a TTL
// that ends with the key's window; the server stores an item only if its
// key has no marker. The window is counted by the time the server stamped
// on the item and the clock of the process that hands it out, and a TTL
// in whole seconds: a key may be refused up to a second past its window,
// or less long by how far that clock runs ahead of the server's. A key
// added again past its window while its item still waits is a second
// item. Keys are kept as long as the store keeps what it confirmed.
//
// The cost is a message stored until the window ends for each item
// handed out: [Consume] carries 0.4 to 0.5 times as many items a second
// as it did; Add and AddMany cost what they did. A queue made by an earlier
// version gains the markers as it opens (the keys it consumed before have
// none), and an earlier version then refuses to open it: the servers
// refuse to turn the stream's TTLs off again.
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
// Replicas 3, the queue's stream, its dead letters and its consumer each
// have three copies, on three servers, one of which leads it. A server
// that shuts down hands what it leads to another at once: a chain running
// on the queue goes on, and the items whose acknowledgements were on
// their way come back after their lease, to reach the sink a second time. A cluster that loses the majority of a
// queue's servers answers nothing about it until one of them returns:
// [Consume] waits that out (see its doc), renewing its leases, but what
// its sink acknowledges meanwhile is lost, and comes back to the sink
// once the cluster does: in tests with 2,000 items, as many items as the
// chain held came twice. A queue with more replicas than the cluster has
// servers with JetStream, or with replicas on a server that is not part
// of a cluster, is refused by [Open] with an ErrConfig.
//
// A request lost as the cluster changes leaders is never answered: give
// [Queue.Add] and [Queue.Len] a context with a timeout (AddMany waits
// Config.ConnectTimeout an item), and add again: Dedupe keeps it once.
//
// # Credentials
//
// On a [Server], a queue takes what a NATS user has: user and password,
// TLS certificates (mutual TLS included: mtls.Load makes the
// configuration from three PEM files), or a creds file, on a server in
// operator mode (accounts and users as signed JWTs). There, JetStream on
// the server is not enough: the account's JWT must enable it in its
// limits, or [Open] fails creating the stream ("JetStream not enabled for
// account"). The creds file is read at every connection, the reconnects
// included: it may be replaced while a queue is open, and one deleted
// breaks the next reconnect. A user the server does not trust, whether its
// account is unknown or signed by another operator, is refused alike. A
// creds file that cannot be read, or holds no user seed, is an ErrConfig
// naming it.
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
// queue makes its consumer anew at each open (the consumer's own state is
// not to be trusted after a crash), so it counts what crashes cost in
// files beside its store. A run that dies holding items makes suspects of
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
