// Package rate passes items through a token bucket: an agent that emits the
// values posted to it unchanged and in order, no faster than a rate (events
// per second, fractions allowed) with bursts of up to a number of tokens
// (from the package example):
//
//	rt := agent.NewRuntime()
//	defer rt.Shutdown(context.Background())
//	a, err := rate.New(rt, rate.Config[string]{Rate: 1000, Burst: 10}, func(s string) {
//		fmt.Println("out:", s)
//	})
//	err = a.Post(ctx, s)
//	a.Close()
//	err = a.Wait(ctx)
//
// Values come out unchanged and in the order they were posted, and in any
// window of length t the items let through cost at most burst + rate·t
// tokens, up to the lateness of its timers (below). The agent never emits more than the next one takes, and in a
// chain the work of the stage after it starts at that pace, retries
// included.
//
// The bucket starts full and refills continuously, from the instants carried
// by the agent's messages: at any instant it holds min(burst, tokens +
// rate*elapsed), never a refill once a second. Each item takes its cost from
// the bucket (1 unless [Config.Cost] says otherwise). When the oldest item
// must wait, the agent asks for one timer to the nanosecond its tokens are
// due, and items behind it wait too, so a costly item is never overtaken. The
// rate and burst can change while it runs ([SetLimit]).
//
// A timer may fire late. Late by less than 5 ms (or than the refill of
// the item it was for), its item passes as of the instant it was due, so
// that a bucket of burst 1 does not lose the lateness, and the output
// bunches by that much; later than that, as after a stall of the process
// (a long pause, SIGSTOP, a starved CPU), the bucket counts from the
// instant the timer fired and lets out at most its burst at once, rather
// than make up for the stall. An agent of a Shared limit never counts
// from an earlier instant: a share with a burst of 1 loses its timers'
// lateness, so give a shared limit a burst of a few per process.
//
// Unlike golang.org/x/time/rate, whose Limiter each caller asks for
// permission and waits on, this is an agent that holds the items: callers
// Post and go on (Post blocks only while the bounded input queue is full),
// the agent emits each item when its tokens are there, Close and Wait drain
// it, and it chains with the other agents of this module through demand, so
// it never emits more than downstream takes. Both packages are named rate; a
// program that imports both aliases the other one, for instance as xrate.
//
// [New] runs a rate agent on an agent.Runtime and returns its agent.Handle,
// which is safe for concurrent use; [Stage] makes one a stage of a compose
// chain. The whole behaviour is the pure function [Evolve] over a [State],
// a plain value for one goroutine, evolved once per step. Evolve takes
// agent.Input[Item[T]] (the handle builds the Items), agent.Pull,
// agent.Tick (of the one timer it asks for), agent.Set[Limit], agent.Close,
// agent.Query, answered with an agent.Reply[Status], and, in a chain, the
// reservations of the stage after it (below).
//
// # The pace holds where the work starts
//
// In a chain, a parallel or adaptive stage after a rate stage starts work
// on what it lets through, and may try an item again. A token spent on an
// item that then waited in that stage's queue (behind a retry holding up
// the output, a slow item, a full window) would let it start later
// together with the items the refill lets through. So that stage takes
// items only as it can start them: its demand to this stage is not its
// queue's free slots but the items it can start as they come, as its
// places and downstream demand free up. The items wait here, in this
// stage's queue, and each starts as it is let through. A retry reserves a
// pass of this stage's pace, which grants it as its bucket allows, a
// token a pass, ahead of the items it holds, and starts as the pass comes
// ([Status].Reserved counts the passes reserved and not yet granted,
// Granted those granted);
// so does an item that came and found no place after all (the room opened
// for a batch went to smaller ones, or the limit fell), its first token
// lost. So the work starts in any window of length t at most burst +
// rate·t times, retries included, whatever stalls after this stage; and
// this stage finishes only after the stage it paces.
//
// # Fair shares
//
// [Config.Key] shares the bucket among keys (clients, tenants): the items
// wait in a line per key, and among the keys with items waiting, the
// tokens go in proportion to their [Config.Weights] (1 for a key not
// named), each item charged the bucket's time for its tokens (its cost
// over the rate), by deficit round robin (package internal/fair). So one
// client's 100,000 calls do not make another's ten wait behind them, a
// key alone gets every token, and each key's items pass in the order they
// came. The choice is made as tokens come: an item is taken from its line
// only as the bucket is about to pay for it. Over any span through which
// two keys both had items waiting, the bucket's time each got, per weight,
// is within [Config.Quantum] (a millisecond by default) plus one item's
// time per weight of the other's (TestAKeyedRateAgentKeepsTheBound
// measures it after every step of random fleets). Post lets one key fill
// only [Config.KeyQueue] of the input queue, a quarter by default, so a
// flood from one key leaves the others room: post each key's items from a
// goroutine of its own. This is where to share an API's quota fairly: a
// keyed stage behind a rate stage takes an item only as it can start it,
// so the backlog waits here. Evolve copies the lines of a State it is
// given, O(n) for the n items in them; the runtime changes its State in
// place.
//
// # A rate shared by several processes
//
// A rate agent's bucket is its own: two processes each with an agent of
// 100 a second let 200 a second through. Config.Shared makes the agent
// take its tokens from a limit that several processes share instead
// (durable's Queue.Limit is one): the agents of all of them together keep
// to the one limit, each spending the share granted to it for a lease, and
// nothing once the lease ends (Limit.Until).
//
// The zero [Config] is not valid: Rate and Burst are required. Queue 0 picks
// agent.DefaultQueue, and a nil Cost makes every item cost 1.
package rate
