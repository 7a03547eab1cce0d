// Package parallel runs work on many items at once, at most a limit of them
// at a time, and passes the results on in input order, or as they finish
// (from the package example):
//
//	rt := agent.NewRuntime()
//	defer rt.Shutdown(context.Background())
//	parse := func(_ context.Context, s string) (int, error) { return strconv.Atoi(s) }
//	p, err := parallel.New(rt, parallel.Config{Limit: 2}, parse, show)
//	err = p.Post(ctx, s)
//	p.Close()
//	err = p.Wait(ctx)
//
// At most Limit items are worked on at once. Every item accepted ends
// exactly once (unless Stop drops it), as one [Result] handed to the sink:
// a failure is passed on like a success and does not stop the agent, and
// Wait reports the first one. What is held waiting for output stays bounded, and with a rate
// stage before it, its work starts no faster than that rate, retries
// included.
//
// [New] starts an agent on an agent.Runtime and returns its agent.Handle.
// Post items to it; it runs its [Work] on each in a goroutine the runtime
// owns and hands every [Result] (the item's input position Seq, the work's
// value, its error) to a sink function. Post blocks while the input queue
// is full, TryPost reports agent.ErrFull. Work that returns an error or
// panics makes a failed Result (a panic arrives as an *agent.PanicError
// with its stack): it is counted in [Status] and passed on like any other,
// and the agent carries on. After Close, Wait returns once every accepted
// item has been finished and emitted, with the first failure the agent
// saw, as errgroup's Wait does. [SetLimit] changes the limit while the
// agent runs. [Stage] makes the same agent a stage of a compose chain,
// passing on the values of the items that succeeded.
//
// # Order
//
// In input order, a result that finishes before an earlier one is held
// (counted in Status.Held, the results finished and not yet emitted) until
// that one is emitted, and while the limit times the batch size (below) of
// results are held no new work starts: a slow item delays the output behind
// it, but the memory it pins stays bounded.
//
// # Batches
//
// Handing an item to a worker and its result back costs a few microseconds.
// For work that takes less, the agent hands a worker a batch of queued items
// to work on one after another, so the hand-over is paid once per batch. At
// most Limit batches are in flight, each worked on by one worker, one item
// at a time, so at most Limit items are worked on at once. A batch holds one
// item until a batch has finished; then as many items as took [BatchSpan]
// on average so far (the time the work ran, as agent.Done's Took reports
// it; or, when it is zero, the time from the message that started a batch
// to the one that brought its results), at most [Config.MaxBatch]. The
// items that may start are shared evenly among the free places (the
// runtime hands the agent the results that came since its last round
// all at once, and they free their places together), but no
// batch holds fewer than took [ShareSpan] (while that many may start): work
// too small to gain from running in parallel goes to one worker at once. So
// work of BatchSpan or more always goes one item at a time, and work of
// ShareSpan or more is shared out. The cost of a batch is that an item may
// wait behind the others of its batch, up to about BatchSpan, or longer
// when one of them is much slower than the rest; MaxBatch 1 turns batches
// off.
//
// # Timeouts and cancellation
//
// [Config.Timeout] gives each item a deadline: its work's context ends after
// it, and an item whose work returns after it fails with an error for which
// errors.Is(err, context.DeadlineExceeded) holds. [Config.CancelOnError]
// makes the first failure cancel the rest, as errgroup.WithContext and
// conc's WithCancelOnError do: the context of the work in flight ends, with
// that failure as its cause, and every item not yet started fails at once
// with an error saying so. Each item still ends exactly once.
//
// # Retries
//
// [Config.Retry] tries an item whose work failed again, up to Attempts
// times in all, for the failures its If accepts (by default all but a
// cancellation). Between two attempts the item waits a backoff with full
// jitter, at least what an [agent.RetryAfterError] in the failure asks for;
// the wait is a timer of the agent's (a Tick), and its random draws come
// from a generator seeded by Retry.Seed and kept in the State. A retried
// item starts as a batch of its own whose ID is its Seq, ahead of the items
// queued behind it; in input order the results after it wait for it. Only
// the last attempt's failure is passed on; Status counts the retries.
//
// A retry keeps the pace of the chain: once due, and with a free place,
// it reserves a pass and its place is kept for it until the pass comes
// (an agent.Send effect and an agent.Event message of the module's own
// payloads, which only the runtime and the simulator exchange). Behind a
// rate stage, the rate stage grants it from its bucket, ahead of the items
// it holds; anywhere else the runtime grants it at once. Behind a rate
// stage, the agent also takes items only as it can start them: its demand
// to the rate stage is the room it opens as places and downstream demand
// free up (Status.Paced, true while a rate stage paces it, and Room, the
// items it can start as they come and has not got yet), not its queue's
// free slots, and it
// starts each item as it comes; one that finds no place after all waits
// for a pass as a retry does. So its work starts no faster than the rate,
// retries included, whatever holds it up.
//
// # Moves
//
// Work written for a remote stage may end a step by returning, as its
// error, remote.Move(tag, next): it asks for its item to go on where the
// resource tag names is held, with next, the state the work reached, as
// its input. A parallel agent runs in one process, which holds whatever it
// holds, so the item goes on here: it starts again at once with next, as
// a retry does (ahead of new items, with a pass of the chain's pace, its
// result under its Seq), spending none of its attempts. After
// [Config.MaxMoves] moves it fails for good with an error wrapping
// [ErrMoves] and naming the tags it went to; a next of another type than
// the agent's items fails it too. Status counts the moves. So the same
// work runs in a test, or on one machine, before its steps spread over
// workers of several kinds (see remote's package doc, under Moves).
//
// # Fair shares
//
// [Config.Key] names each item's key (a client, a tenant), and the agent
// shares its places among the keys that have items waiting, in proportion
// to their [Config.Weights] (1 each by default), charged by the time their
// work takes: deficit round robin (package internal/fair), with the work's
// time in the place of a packet's bytes. So one key's 100,000 items do not
// make another key's ten wait behind them, a key of slow items gets no
// more of the workers' time than one of quick items, and a key alone gets
// every place. Each key's items start in the order they came; in input
// order, the results come out in the order their items started, so each
// key's in its own order, and Result.Seq counts the items in the order
// they started rather than came.
//
// The bound: let Q be the [Config.Quantum], L the longest an item's work
// takes, and w(k) key k's weight. Over any span through which keys i and
// j both had items waiting, the work started for each, per weight, is
// within Q + L/w(i) + L/w(j) of the other's, plus what the agent's
// estimates missed by: an item is charged, as it starts, what its key's
// items took on average, and corrected once its work ends, so a key's
// first items, charged a guess before any of its work was timed, may
// move the bound by what the guess missed. TestKeysShareTheWorkWithinTheBound
// measures it after every step of random fleets in virtual time.
//
// Post bounds each key's items waiting to [Config.KeyQueue], a quarter of
// the Queue by default, within the Queue: a flood from one key fills its
// part, and Post blocks for it (TryPost says agent.ErrFull) while the
// others' items still get in. In a chain, this holds for the chain's first
// stage, whose queue the chain's Post fills; a keyed stage further down
// takes items as its queue has room, in the order the stage before it
// passes them on, and shares its places fairly among those it holds.
// Status gives, by key, the items waiting, those started and the weights.
//
// With a Key, the items waiting are kept in a line per key that is
// changed in place: the runtime's State is owned and pays O(1) per item
// (up to 70 nanoseconds of CPU more an item than without keys, the most
// with a thousand keys: up to two fifths of the throughput of work that
// does nothing, under a tenth of that of work of 2 µs; BenchmarkKeys and
// docs/fair-shares.md), while a State a test evolves copies the lines on
// each step. While no key but one has items waiting, they go past the
// lines, at a plain agent's cost.
//
// # Evolve
//
// The agent's whole behaviour is [Evolve], a pure function over a [State]
// value: tests and simulators drive it directly, with no goroutines and no
// clock (see package agenttest and the Evolve example). It takes
// agent.Input[In], agent.Pull, agent.Close, agent.Query (answered with an
// agent.Reply[Status]), agent.Set[Limit], agent.Tick of its retry timer,
// the agent.Event bringing the passes it reserved and the one saying that
// a rate stage before it keeps a pace, and
// agent.Done[[]Result[Out]] for the batch it started with an
// agent.Start[[]In], whose ID is the input position of the batch's first
// item (or, for a retry, the item's). A Done carries one Result per item of
// its batch, in order (their Seqs are the batch's, whatever the Done says);
// an item it carries no result for fails, and a Done for an ID not in
// flight is ignored.
//
// # Concurrency
//
// A Handle is safe for concurrent use. Work runs concurrently, up to the
// limit; the sink is called one result at a time, each call over before the
// next begins (in the agent's rounds, on whichever of the runtime's
// goroutines runs them), so it needs no locking, and a slow sink slows the
// agent. A State is a value that Evolve never changes; two States evolved
// from one share memory, so they must not be used on two goroutines at
// once.
//
// # Cost
//
// On a two-core machine, an item with trivial work costs well under 1 µs end
// to end once batches have formed (one Post, a share of a batch's hand-over
// and of its Evolve calls, one call of the sink); see BenchmarkAgent and
// BenchmarkEvolve. Evolve's time per item does not grow with the limit, the
// batches in flight or the results held: each new State costs O(1) time
// and a small allocation or two per item (see [State]), so a limit in the
// thousands, for work that waits on I/O, costs per item what a limit of
// ten does.
//
// Work that waits goes one item at a time, and each item's hand-over to a
// worker and back, with the agent's round for it, costs about 3 to 4 µs of
// CPU in all: about 1.5 times what a goroutine per item behind a semaphore
// costs. While the cores have room, that only uses CPU that was spare, and
// items pass as fast as with goroutines (on two cores, up to a few
// thousand in flight of 5 to 15 ms work). Where the cores are full (10,000
// in flight of such work on two cores), items pass about 0.6 to 0.75 times
// as fast. BenchmarkScale in the bench module measures both.
//
// # Zero values
//
// The zero [Config] is not valid: Limit is required. Its other fields default
// to the name "parallel", an input queue of agent.DefaultQueue items,
// output in input order, batches of up to [DefaultMaxBatch], no timeout, and
// no cancellation on error. The zero State is not usable; [NewState] builds
// one.
package parallel
