// Package replay plays a recording of a running chain back through the
// chain's evolve functions (from the package example, whose squares builds
// a stage of a rate, a parallel and a buffer agent):
//
//	stage, err := squares()
//	var recording bytes.Buffer // a file, in a program
//	chain, err := compose.Start(rt, stage, func(b []int) {
//		...
//	}, compose.WithRecording(&recording))
//	err = chain.Post(ctx, i)
//	chain.Close()
//	err = chain.Wait(ctx)
//
//	// Later, elsewhere: the same stage, the recording.
//	stage, err = squares()
//	res, err := replay.Run(stage, &recording)
//
// Run returns a nil error only if the same evolve functions, fed the same
// messages, return the same effects and end with the same statuses, byte
// for byte; else it names the agent, the step and the first difference.
// Nothing runs but the evolve functions: no goroutines, no clock, no work.
//
// A chain started with compose.WithRecording
// writes down, as it runs on the real runtime, every message each of its
// agents' evolve takes, with its instant, and the effects evolve returned.
// [Run] feeds the recording to fresh agents of the same stage, each agent
// its own messages in the order it took them, and compares what evolve
// returns now with what it returned then: so a bug report can carry a
// trace, and whoever reads it replays the run step by step, under a
// debugger if need be, with no goroutines, clock or work (no effect is
// performed, only compared).
//
//  1. Start the chain with compose.WithRecording(f), f a file, and Wait
//     for it: Wait returns once the recording is written.
//  2. Send the file with the report, and say how the stage was built: the
//     replay needs the same agents with the same settings (the seed of a
//     retry's jitter, say; the work functions do not matter, they do not
//     run).
//  3. replay.Run(stage, file) returns nil once every effect, and every
//     agent's final status, came out byte for byte as recorded; else a
//     [*DivergenceError] names the agent, its step, the message and the
//     first effect that differs, with both encodings. A recording of an
//     agent whose evolve is not pure (one that reads a clock, or ranges
//     over a map) diverges where that shows.
//
// What is compared: each step's effects, encoded, and, after an agent's
// last step, its status (the answer to a Query), encoded. Evolve is pure,
// so a state that went another way shows in them; states are not compared
// after each step, which would cost the running chain a Query a message.
//
// # The recording
//
// A recording is JSON lines. The first is its header:
//
//	{"recording":"evolve","version":1,"base":<Unix ns>,"zone":<seconds east of UTC>,"agents":["rate","parallel"]}
//
// base is the instant the recording starts at, and each line's "at" its
// instant, in nanoseconds after base as the clock measured them, so that
// the agents see the same durations between their instants on replay.
// Then come the steps, each agent's in the order its evolve took them (the
// lines of two agents interleave in no particular order), numbered from 1
// for each agent:
//
//	{"agent":1,"name":"parallel","step":7,"at":1250000,"msg":{"Done":{...}},"fx":[{"Emit":{...}},...]}
//
// "agent" is the agent's position in the chain, from 0; "msg" the message
// without its At, keyed by its kind, or by its type's full name for a Set
// or an Event; "fx" the effects evolve returned, each keyed by its kind,
// or by its type's full name for a Send. A
// step whose evolve panicked has "panic":true and no "fx". Last, as an
// agent ends, a line with "final" holds the status it ended with (null for
// none), taken at "at" after its last step. A stage that a chain puts in
// front of its own (the gate of compose.DropOldest) is not recorded.
//
// # Values
//
// Values are written so that they read back into the same Go types, and
// the same value always to the same bytes: a struct as an object of all
// its fields in order, a map as a list of [key, value] pairs ordered by
// the keys' encodings, a []byte as base64, a float as the shortest text
// that parses back to it ("NaN", "+Inf" and "-Inf" as strings), a string
// that is not UTF-8 as {"$bytes": base64}, a time.Time as {"$at":
// nanoseconds after base}. A type with MarshalJSON and UnmarshalJSON, or
// else MarshalText and UnmarshalText, encodes itself. A value in an
// interface is {"$type": name, "$value": value}; one of a type the replay
// cannot name (any but Go's basic types, time.Time and time.Duration)
// reads back as a value that encodes the same but is not of that type, and
// agent packages do not look inside items, so they do not see the
// difference. A value the replay could not read back (a channel, a
// function, a struct with an unexported field and no such methods, or one
// nested more than 64 deep) stops the recording, not the chain, and the
// chain's Wait reports it with compose.ErrRecording.
//
// An error (a Done's Err, or a parallel.Result's) is written as {"$error":
// text} with what evolve functions look for in errors: the sentinels
// errors.Is finds ("is": context.Canceled, context.DeadlineExceeded,
// agent.ErrClosed, ErrFull, ErrStopped) and the *agent.RetryAfterError
// ("retryAfter") and *agent.PanicError ("panic", stack included) errors.As
// finds. It reads back as an error with the same text that matches those
// alone, so the agents take the same decisions on it. A Retry.If of your
// own that looks for another error, or type, sees only the text on replay,
// and a recording of it diverges where it decides otherwise.
//
// A Set or an Event message carries a payload of its own package's type,
// which the stage's types do not tell: each agent names the ones it takes
// (this module's agents do; an agent of your own names them in its
// spawn.Spec's Takes), and a recording that holds another fails with
// [ErrRecording].
//
// # Cost
//
// A replay costs the decoding of every message and the encoding of every
// effect: some ten microseconds a step, for the steps of a rate, parallel
// and buffer chain. What recording costs a running chain,
// compose.WithRecording says.
package replay
