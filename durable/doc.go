// Package durable runs chains on a durable queue, on NATS JetStream, so
// that a crash of any process loses nothing the queue accepted.
//
//	q, err := durable.Open[Record](durable.Config{Dir: "state"})
//	err = q.AddMany(ctx, entries)                 // from this process or another
//	chain, err := compose.Start(rt, stages, durable.Batches(q, write), compose.WithDeadLetters(q.DeadLetters))
//	err = durable.Consume(ctx, q, chain, durable.UntilEmpty())
//
// A queue is embedded by default: a NATS server runs in the process and
// keeps the queue in a directory, and nothing else is needed. The same code
// at a URL uses a NATS cluster, with replicas, when one machine is not
// enough.
//
// # Tickets
//
// A chain on a queue carries [Item]s: each value with its key and a
// [Ticket]. Stages pass items on as they are; work on values is lifted to
// work on items with [Map], so what an item becomes keeps its ticket; a
// buffer's batches are slices of items. The sink acknowledges an item once
// what came of it has reached the sink ([Sink], or [Batches] for a
// buffer's batches), and the chain's dead letters acknowledge it once it
// is in the queue's dead letters ([Queue.DeadLetters]). Nothing inside an
// evolve function knows of tickets: they travel in the values.
//
// # Guarantees
//
// At least once to the sink: an item is acknowledged only after what came
// of it reached the sink or the dead letters, so an item whose process
// dies before that is handed out again. Exactly once at a sink that is
// idempotent by key: a sink that writes each item under its key, and skips
// a key it has, sees each item's effect once. The re-work after a crash is
// bounded by what the process held: the chain's Bound and one fetch.
//
// An embedded queue that opens again after a crash hands out at once what
// the dead process held. A process that holds an item renews its lease
// (Config.Lease, 5 s) while it runs, so items of a process that died while
// others run on the same queue come back within a lease.
package durable
