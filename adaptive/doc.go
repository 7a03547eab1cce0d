// Package adaptive runs work on many items at once, like package parallel,
// but learns how many: its limit is chosen, between a minimum and a maximum,
// by a controller fed with what completed work tells it (from the package
// example):
//
//	rt := agent.NewRuntime()
//	defer rt.Shutdown(context.Background())
//	upper := func(_ context.Context, s string) (string, error) { return strings.ToUpper(s), nil }
//	show := func(r parallel.Result[string]) { fmt.Println(r.Seq, r.Value) }
//	a, err := adaptive.New(rt, adaptive.Config{Min: 1, Max: 8}, upper, show)
//	err = a.Post(ctx, s)
//	a.Close()
//	err = a.Wait(ctx)
//
// The limit stays within Min and Max, and the default controller, [Hill]
// (a hill-climbing controller), moves it towards the limit that gives the
// most throughput, growing it only while items wait for a place. Every
// other promise is a parallel agent's: each item accepted ends exactly
// once, as one result handed to the sink, and Wait reports the first
// failure.
//
// [New] starts an agent on an agent.Runtime and returns its agent.Handle,
// whose Status is a [Status]. Post items to it and it hands each
// parallel.Result to a sink, in input order unless configured Unordered,
// exactly as a parallel agent does: failures, Wait, Close and Stop, and
// [Config.Timeout] and [Config.CancelOnError], mean what they mean in
// package parallel. [SetLimit] sets the limit by hand while the agent runs;
// the controller carries on from there. [Stage] makes the same agent a
// stage of a compose chain.
//
// # Samples
//
// Every time a piece of work completes, the agent hands its [Controller] a
// [Sample] of it: its service time from Start to Done (measured from the
// messages' At stamps, so queue wait is not in it), how long its item
// waited in the queue, the concurrency it ran at, and how long the agent was
// saturated (items waiting while the limit was in flight) since the last
// sample. Behind a rate stage in a chain, the items wait in the rate
// stage, which lets them through only as the agent can start them (see
// package rate): there the limit in flight is saturation. The controller answers with the limit it wants, which the agent
// brings within Min and Max before the finished work leaves. So that every
// sample is one item's, the agent hands its workers one item at a time: it
// makes no batches (parallel's Config.MaxBatch is 1), which work of a
// millisecond or more does not need. Items that fail without starting,
// after a failure cancelled the rest, make no sample.
//
// # Controllers
//
// Controllers are pure values, kept in the agent's State, so they can be
// compared on equal terms in the simulator (package sim). This
// package has one, [Hill], the default, which climbs the hill of
// throughput against limit: it estimates the throughput at a
// limit by Little's law from service times, moves only on significant
// evidence, grows the limit only while the agent is saturated (so it does
// not drift under light load), forgets old estimates and notices a change
// of capacity.
//
// Any other value with Name, Observe and View will do. The command
// examples/backtest holds three baselines written that way (the algorithm
// the adaptive agent descends from, and Netflix's AIMD and Gradient2 limits)
// and compares them with Hill and every fixed limit; docs/adaptive.md has
// its results.
//
// # Fair shares
//
// [Config.Key] shares the agent's places among keys (clients, tenants) by
// [Config.Weights], charged by the time their work takes, as a parallel
// agent's Key does (see package parallel, Fair shares, for the bound):
// the controller chooses how many places, the keys' turns which items
// take them. Post lets one key fill only [Config.KeyQueue] of the input
// queue.
//
// # Evolve
//
// The agent's whole behaviour is [Evolve], a pure function over a [State]
// value that keeps a parallel agent's state, the controller and a seeded PCG
// random source for it: tests and the simulator drive it directly, with no
// goroutines and no clock. It takes what parallel.Evolve takes, with the
// limit set by agent.Set[Limit] of this package (a limit below 1 is
// ignored, any other is brought within Min and Max), and its work is an
// agent.Start[[]In] of one item, finished by an
// agent.Done[[]parallel.Result[Out]]. Before a Done reaches the parallel
// part, the controller observes its Sample and the limit becomes what it
// asks for; a Done for an ID not in flight is ignored. Any other message is
// answered with agent.Unhandled.
//
// # Concurrency
//
// A Handle is safe for concurrent use. Work runs concurrently, up to the
// limit; the sink is called one result at a time, each call over before
// the next begins, so it needs no locking. A State is a value that Evolve
// never changes; two States evolved from one share memory, so they must
// not be used on two goroutines at once.
//
// # Cost
//
// Evolve costs what parallel.Evolve does, plus one call of the controller
// per completion: on a two-core machine, about 1.2 µs per item (one Input
// and one Done) with a limit of 8 and Hill; see BenchmarkEvolve. As in
// package parallel, that cost does not grow with the limit or the results
// held: a new State costs O(1) time per item, and an earlier one stays
// valid (see parallel.State).
//
// # Zero values
//
// The zero [Config] is valid: a limit from 1 to [DefaultMax], starting at 1,
// chosen by a zero Hill, whose zero value is ready to use. The zero State
// is not usable; [NewState] builds one.
package adaptive
