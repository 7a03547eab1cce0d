// Package fairfetch fetches a durable queue's items fairly by key (a
// client, a tenant): among the keys with items waiting, items start in
// proportion to the keys' weights, charged by the time their work takes,
// however many items each key has queued. JetStream delivers a consumer's
// messages in the stream's order, and has no fair delivery; so each key's
// items are on a subject of their own, with a consumer of their own, and
// this package chooses which key's consumer to fetch from.
//
// # Subjects and consumers
//
// An item of key k is added on <items>.<token>, where the token is the
// first 128 bits of the key's SHA-256 in hex ([Token], [Subject]): any key
// makes one valid token, whatever it holds ('.', '*', '>', spaces). An
// item with no key stays on <items>, where every item was before keys
// came, and its consumer is the queue's own. The consumer of key k, shared
// by every process of the queue so that each item goes to one of them, is
// the durable chain_<token>, filtered on k's subject, made the first time
// a process fetches from k; the servers remove it once nothing has
// fetched from it for five minutes and none of its items is out. On a
// work-queue stream consumers must not overlap, and these do not.
//
// # Turns
//
// A [Book] keeps the items fetched and not yet handed out, in a line per
// key, in a fair.Queue (deficit round robin, time in the place of bytes:
// see package fair): [Book.Pop] hands out the next item, and the item's
// Done, as the item is acknowledged or handed back, charges its key what
// its work took, from Pop on. The Book knows which keys have items in the
// stream from a count of the stream's subjects ([Count], one request for
// the keys and one for the items with none), taken at every Take that
// finds the book empty and otherwise every 100 ms: a key whose first
// items come meanwhile, or that were in the stream while no process ran,
// is found at the next count. A key with items in the stream keeps at
// least two in its line (it is fetched from again when one is left), so
// that its line does not empty, which would cost it its credit and its
// turn; a fetch that brings fewer than it asked marks the key dry until
// the next count (the rest are held by another process, or wait to be
// delivered again).
//
// # The bound
//
// Between two keys backlogged together (each with a line in the book),
// the work started per unit of weight differs by at most
// Q + L/w(i) + L/w(j), Q the quantum and L the longest an item's work
// takes, beyond what the corrections of the items in flight may still
// move it: fair's bound, kept, since the book keeps each backlogged
// key's line from emptying. The property test measures it over random
// keys that come and go.
//
// # What it holds
//
// A Book holds at most its budget of items fetched and not yet handed out
// when lines start, and twice that at most, as a line that has fallen to
// one item gets one past the budget; each fetch asks a key for its share
// of the budget, at least two. When more keys have items than the budget
// has room for lines, they take turns to start one: the keys left out
// wait, and the bound holds among the keys with lines. A line may keep an
// item longer than a lease: the [Leases] a Fetcher (or a [Plain] source)
// holds its messages in, from their fetch until they are let go of, says
// which are due a renewal, but for those a ledger renewed already.
package fairfetch
