// Package agenttest helps test agents at two levels (from the Run example,
// whose gap evolve function emits the time between two ticks):
//
//	tr := agenttest.Run(gap, time.Time{},
//		agenttest.Step{At: 0, Msg: agent.Tick{}},
//		agenttest.Step{At: 1500 * time.Millisecond, Msg: agent.Tick{}},
//		agenttest.Step{At: 2 * time.Second, Msg: agent.Close{}},
//	)
//	fmt.Println(agenttest.Emitted[time.Duration](tr[1].Effects))
//
// Evolve functions are driven directly: [Run] replays a table of steps, each
// a message at an instant, against an initial state and collects every state
// and effect. No actor system, no goroutines, no sleeping.
//
// Running agents are tested on a real runtime: [Runtime] makes one that is
// shut down when the test ends, and [InBubble] makes one inside a
// testing/synctest bubble so that timers and work run in virtual time.
package agenttest
