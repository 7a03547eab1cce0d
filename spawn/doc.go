// Package spawn is for writing new kinds of agent: it runs an evolve
// function of your own on an agent.Runtime, alone or as a stage of a
// compose chain. A program that uses the agents of this module never needs
// it. From the package example, whose dedupeEvolve passes on each word the
// first time it sees it:
//
//	h, err := spawn.New[string, dedupeStatus](rt, spawn.Spec[dedupe, struct{}, struct{}, string]{
//		Name:   "dedupe",
//		Evolve: dedupeEvolve,
//	}, func(w string) { fmt.Println(w) })
//	err = h.Post(ctx, w)
//	h.Close()
//	err = h.Wait(ctx)
//	st, err := h.Status(ctx)
//
// An agent of your own is held, chained, simulated and replayed like the
// module's: it gets an agent.Handle, a Stage for package compose, and the
// runtime's goroutines, timers and demand, and a break of the contract in
// agent.Evolve fails the agent, not the program.
//
// An agent is its [Spec]: an initial state, an evolve function (see
// agent.Evolve for the contract), the bound of its input queue and the work
// its Start effects run. [New] runs it on its own and returns its
// agent.Handle; [Stage] makes it a stage for package compose; [Set] sends a
// running agent an agent.Set message, for a setting that changes while it
// runs. An agent that runs work on a limited number of workers may share
// them with the other stages of its chain (see Spec.Workers). The runtime
// stamps each message with the time, runs the work on goroutines it owns,
// arms the timers, passes values on as the demand downstream allows, and
// reports a message of its own sending that evolve did not handle as the
// agent's failure.
package spawn
