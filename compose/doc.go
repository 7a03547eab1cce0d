// Package compose links agents into typed chains: the values one stage
// emits are the items the next one takes, and the last stage's values go to
// a sink (from the package example):
//
//	limit, err := rate.Stage(rate.Config[string]{Rate: 1000, Burst: 10})
//	upper, err := parallel.Stage(parallel.Config{Limit: 4}, func(_ context.Context, w string) (string, error) {
//		return strings.ToUpper(w), nil
//	})
//	lines, err := buffer.Stage(buffer.Config[string]{Size: 3}, nil)
//	chain, err := compose.Start(rt, compose.Pipe3(limit, upper, lines), func(line []string) {
//		fmt.Println(strings.Join(line, " "))
//	})
//	err = chain.Post(ctx, w)
//	chain.Close()
//	err = chain.Wait(ctx)
//
// A chain is bounded end to end: no stage emits more than the next can
// hold, a producer faster than the slowest stage is slowed to its pace
// (unless the chain's Overflow policy drops or refuses instead), and no
// mailbox grows without bound. Close drains it stage by stage, and
// Wait returns once the sink has seen every value, with the errors of
// every stage that failed.
//
// A stage is an agent.Stage: every package that makes an agent has a Stage
// function that returns its agent as one, and spawn.Stage makes one of an
// evolve function of your own. [Pipe2], [Pipe3] and [Pipe4] link stages
// left to right, and linked stages are a stage too, so longer chains nest.
// [Start] runs the agents and returns the chain's agent.Handle: Post, Close,
// Wait, Status and Stop work on the chain as they do on one agent.
//
// # Backpressure
//
// A chain is bounded end to end by demand. Each stage starts with as much
// demand as the next stage's input queue holds and earns more only as that
// stage takes items out of its queue, so a stage never emits more than the
// next can hold, and without demand it stops starting new work. A rate
// stage in front of a parallel or adaptive stage gets less: demand only for
// the items that stage can start as they come, so that its work starts at
// the rate's pace (see package rate). A producer
// that is faster than the slowest stage is slowed to its pace: Post blocks
// while the first stage is full (or drops, or fails, as the chain's
// [Overflow] policy says). No mailbox grows without bound.
//
// Each stage's Queue setting bounds the items it has accepted and not yet
// taken up (started, passed on, or handed to a flush). What a stage works on
// counts against the queue of the stage after it, so every item inside a
// running chain is within [Status].Bound, the sum of the stages' queues, but
// those the last stage works on: at most its Limit times its MaxBatch for a
// parallel last stage, one batch for a buffer. (Each queue counts the items
// its stage takes: a stage after a buffer counts batches.)
//
// # Drain and failure
//
// Close ends the input. Each stage drains what it holds and then closes the
// next, so Wait returns once the sink has seen every value, with the errors
// of every failed stage joined. Nothing is polled. A stage that fails (its
// evolve panics) takes whatever it is sent and drops it, so the stages
// before it still drain; a parallel stage passes on only the values of the
// items that succeeded, and counts the others in its Load (its
// agent.Load, the snapshot of its queue and work in flight that every
// status embeds).
//
// # Record and replay
//
// [WithRecording] makes a chain write down every message each of its
// stages' evolve takes, and the effects it returned, so that package
// replay can play the run back, with no goroutines, clock or work, and
// check that the same evolve functions do the same again; package
// replay's doc says how.
//
// # Status
//
// The chain's Status holds each stage's agent.Load, typed, and its own
// status as Detail, so a program can show any stage's load without knowing
// its kind; LogStatus writes one event per stage.
package compose
