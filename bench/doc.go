// Package bench measures evolve against what a Go programmer would pick
// instead of it: hand-written channels, github.com/sourcegraph/conc,
// golang.org/x/sync/errgroup, github.com/panjf2000/ants, a bare protoactor-go
// actor, golang.org/x/time/rate and go.uber.org/ratelimit, side by side in one
// run. It is a module of its own (its go.mod replaces evolve with ../), so none
// of these enter evolve's dependencies. The package holds only benchmarks;
// every variant checks at the end that its sink saw every item exactly once,
// and fails otherwise. A benchmark reports figures; it never fails for being
// slow.
//
// # The benchmarks
//
// The names are stable, so figures can be compared over time.
//
// BenchmarkChain/{evolve,evolve-metrics,channels,conc,errgroup,ants}: b.N items (one op is one
// item) through at most 4 workers computing x*2+1, then batches of 100, to a
// sink. evolve is a compose chain, compose.Pipe3 of a rate stage with no real
// limit (Rate math.MaxFloat64, Burst 1<<30), a parallel stage of limit 4
// (results in input order, its default) and a buffer stage of Size 100,
// started with compose.Start and fed with Post on the handle it returns.
// evolve-metrics is evolve on a runtime with agent.WithMeterProvider (an SDK
// provider with a manual reader) and agent.WithHistograms (the reader's
// producer), collected once as the chain ends, before the timer stops; it
// fails unless each agent's queue-wait histogram counted every item.
// channels is 4 long-lived worker goroutines reading a channel, sending to a
// batcher goroutine that sends batches over a channel to the sink goroutine
// (channels hold 64 items, like evolve's input queues). conc submits one task
// per item to pool.New().WithMaxGoroutines(4), errgroup runs one goroutine per
// item on an errgroup.Group limited with g.SetLimit(4), ants submits one task
// per item to a pool of 4; each task sends its result to the same batcher and
// sink as channels. The peers do not keep input order.
//
// BenchmarkAgent/{evolve,protoactor}: b.N messages posted one at a time to one
// agent (spawn.New from package spawn, input queue 1024) whose evolve
// counts each and gives its input slot back, then Close and Wait; against
// Root.Send of as many messages to a bare protoactor actor that counts them.
// Both report msg/s.
//
// BenchmarkRate/{evolve,xrate,uber}/{1000,10000,100000} and
// BenchmarkRate/burst-1/{evolve,xrate,uber}/{1000,10000,100000}: about one
// second of items through a limiter set to the rate in the name, with a burst
// of 10 ms of tokens (rate/100), or of 1 under burst-1, each item taken as soon
// as the limiter allows. evolve is a rate agent (rate.New) fed by a goroutine
// with Post, its sink taking the items; xrate calls Wait on
// xrate.NewLimiter(r, burst) before each item; uber calls Take on
// ratelimit.New(r, ratelimit.WithSlack(burst)), or ratelimit.WithoutSlack for
// a burst of 1, before each item. After a warm-up (the burst, and 100 ms), the
// achieved rate is the number of items that passed after the first measured
// one divided by the time between them, which neither credits the initial
// burst nor penalises a limiter that has none; err% is
// 100*(achieved-configured)/configured. A limiter far below its rate stops
// being offered items after 2 s and is measured on those it passed.
//
// BenchmarkSharedRate/{1000,10000,100000}/{local,shared}: BenchmarkChain's
// chain with a real rate at the rate in the name and a burst of 10 ms of
// tokens: the rate stage's own bucket (local), or a limit of that rate and
// burst shared through a durable queue embedded in the process
// (Queue.Limit, as rate.Config.Shared) that this process alone holds
// (shared). Items are posted for 3 s, more than the rate lets through; an
// item passes as the parallel stage starts it. items/s counts from the
// first item passed after a burst's worth to the last one; err% is
// 100*(items/s-configured)/configured; first-ms is the time from the
// chain's start to its first item, which for shared is the wait for the
// first grant. -sharedrate-trace logs the grants and the reports of use.
//
// BenchmarkOverload/{evolve,unbounded}: 20,000 items carrying 4 KiB each, made
// by a producer as fast as it can, through 4 workers and batches of 100 to a
// sink that takes 100 µs an item: the producer is over 100 times faster than
// the sink. evolve is BenchmarkChain's chain fed with a blocking Post;
// unbounded appends every item to a slice-backed queue that never blocks, read
// by 4 workers. It reports peak-heap-MB, the highest reading of the
// runtime/metrics value /memory/classes/heap/objects:bytes (live and not yet
// swept objects), sampled every millisecond after a GC.
//
// BenchmarkScale/limit={10,100,1000,10000}/{evolve,evolve-unordered,goroutines,conc}:
// items whose work sleeps 5 to 15 ms (drawn from a seeded generator), as
// calls over a network do, 40 times the limit of them (-scale-waves), at
// that limit in flight. evolve is a parallel agent (parallel.New) with that
// Limit and a Queue of twice it, in input order, or not (evolve-unordered),
// fed with Post; goroutines starts a goroutine per item behind a semaphore
// of the limit; conc submits one task per item to
// pool.New().WithMaxGoroutines(limit). It reports items/s, of-ideal (items/s
// over limit ÷ mean sleep) and peak-MB, the highest reading of the heap's
// object bytes plus the goroutine stacks, sampled every millisecond. The
// evolve variants share one runtime, made before the first run.
//
// BenchmarkNewRuntime/open-and-shut makes a runtime and shuts it down: B/op is what that
// allocates, kept-KB what an open runtime with no agent keeps on the heap.
//
// BenchmarkAdaptiveCPU/{adaptive,fixed-1,fixed-2,fixed-4,fixed-8}: 10,000
// jobs, each the factorisation by trial division of the prime 200,000,000,041
// (about 1 ms on the 2-core machine the first figures came from; each run
// reports what one job alone takes there, before and after it, as ms/job),
// posted as fast as the agent takes them, far faster than they are served.
// adaptive is adaptive.New with its default controller and limits 1 to 16
// (and reports the limit it ended at); fixed-N is parallel.New with Limit N.
// It reports items/s, and cores: items/s times the time of one job alone,
// the cores' worth of jobs done, a check on items/s when the machine's speed
// changes during the run. bench/run runs every benchmark once per count, in
// turn, so such a change touches every variant alike.
//
// BenchmarkRemote/{workers-1,workers-2}: b.N ints posted to a remote stage
// (remote.New on its own, its node on the loopback) whose workers, 1 or 2
// processes running the test binary, double them; 64 slots and a prefetch
// of 2,048 a worker, 512 items a message at most. It reports items/s, and
// the allocations and bytes of the master's process alone per item.
// BenchmarkRemoteRaw: b.N small protobuf messages sent one way over
// protoactor remote to an actor in a child process, as msg/s: what the
// wire carries at most. Both time the stream after a first 100,000 items
// (messages), whose time they report apart as start-ms. Neither runs
// under -race (protoactor's remote races as it starts and stops).
//
// Rate, SharedRate, Overload, Scale and AdaptiveCPU do a fixed amount of
// work, so each call runs it once, whatever b.N: a run lasts about a
// second or more (a Scale run about half of one), which is the default
// -benchtime, so the testing package calls them once (with -benchtime 1x
// too), and their ns/op, B/op and allocs/op are replaced by the run's
// figures per item, beside cpu-ns/op, the CPU time of the process per item.
//
// BenchmarkSim runs the chain rate, parallel(4), buffer(100) in package sim
// for 10 virtual seconds an op and reports the messages delivered to the
// agents' evolve functions a second of wall time.
//
// BenchmarkDurable/raw-publish publishes b.N messages asynchronously to a
// stream on an embedded server, each with a message ID;
// BenchmarkDurable/raw-publish-like publishes them to a stream and
// consumer configured as those of a queue with the default Config: what
// BenchmarkDurable/add (AddMany) is held to, the server doing the same
// work for both.
//
// # Running them
//
// From the repository's root, bench/run runs them all, five times each, and
// writes docs/benchmarks.md (the medians, evolve's ratios to its peers, and
// the targets met or not) and the raw output in docs/benchmarks.txt:
//
//	bench/run                         # about 40 minutes on 2 cores
//	bench/run -count 1 -bench Chain   # one family, once
//
// By hand, in this directory:
//
//	go test -run '^$' -bench . -benchmem -count 5 . | tee /tmp/bench.txt
//	go run ./cmd/report -in /tmp/bench.txt   # the report, to standard output
//
// A quick check that everything builds and runs, in well under a minute (the
// one CI makes, with staticcheck besides):
//
//	go vet ./... && go test ./... && go test -run '^$' -bench 'Chain|Agent|Overload' -benchtime 1x .
package bench
