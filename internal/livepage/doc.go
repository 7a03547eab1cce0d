// Package livepage is a live page of running chains: each chain drawn as
// its stages in a row, each stage coloured by what it did over the last
// seconds (busy, held back by the stage after it, or idle), so that the
// bottleneck shows at a glance, with its rates, queue, work in flight,
// limit, tokens and waits, and a remote stage's workers, lines by tag
// and fair keys. The page is plain HTML, a script and a style sheet,
// embedded in the program; it fetches nothing from elsewhere, and polls
// the JSON document /live.json twice a second. Package promserve serves
// it at / beside /metrics; docs/live.md shows it.
//
// # Watching
//
// A program hands the page each chain to show with [Watch]: the handle
// of a compose chain, whose Status lists its Agents, or of one agent.
// [Page.Run] samples every chain at a fixed period ([Period]): it asks
// each for its Status (a round trip per stage) and notes each stage's
// [Phase]. A chain that is done is asked once more, then shown as it
// ended; the page keeps the last few.
//
// # Shares
//
// Each sample puts each stage in one phase, by [Classify], from its
// agent.Load and what its status says it holds: held back when its demand
// is zero (the stage after it takes no more) while it holds results, or
// items queued and no work in flight; busy when it has work in flight or
// items queued that it is taking up (a rate stage spending tokens);
// idle otherwise. A stage with a limit is busy in proportion to its work
// in flight, and idle for the rest ([Weigh]): one slot of eight at work
// is an eighth busy. A stage's shares are the means of its samples' over
// the last [Window]: the time accounting of Flink's web UI (busy,
// back-pressured, idle) measured by sampling. The root cause of a
// slow chain is usually the first stage busy but not held back, the
// chain's bottleneck: the first stage busy for at least half the window
// and busy more than held back. A sample is a snapshot: a stage busy for
// less than a period between two samples may not show.
//
// # What the page reads
//
// Of a status, the page reads by field name what the agent packages'
// statuses have: Held (results held), Pending (a buffer's open batch, which
// waits for input), Limit, Tokens, Rate, Burst, Shared; a remote stage's
// Workers, Tags, Want, Leased and Retrying; a keyed stage's Keys, Started
// and Weights. A field a status lacks is shown as none. The
// rates in and out and the waits come from the metrics the program
// serves (package meter: evolve_items_in_total, evolve_items_out_total
// and the histogram evolve_queue_wait_seconds, by agent name), read once
// a second; two stages of one name share them.
//
// # The JSON document
//
// GET /live.json answers with a [Live] document as of the last sample:
//
//	{
//	  "time": "2026-11-28T05:00:00.1Z",   // the last sample
//	  "window": 5, "period": 0.1,          // seconds
//	  "chains": [{
//	    "name": "typewriter", "done": false, "error": "",
//	    "bottleneck": "parallel",          // "" when none
//	    "stages": [{
//	      "name": "parallel", "kind": "parallel",
//	      "shares": {"busy": 0.9, "held": 0.02, "idle": 0.08},
//	      "queued": 10, "in_flight": 2, "done": 140, "failed": 0,
//	      "demand": 3,                     // null: unbounded
//	      "results": 0,                    // results held, not passed on
//	      "in": 4.2, "out": 4.0,           // items a second over the window
//	      "limit": 2, "tokens": null, "rate": null, "burst": null,
//	      "wait_p50": 0.8, "wait_p99": 2.3, // seconds in the input queue
//	      "workers": [{"id": 1, "addr": "127.0.0.1:7001", "tags": ["gpu"],
//	                   "slots": 4, "free": 0, "in_flight": 4, "done": 9, "failed": 0, "moved": 2, "hung": 0,
//	                   "history": [{"busy": 1, "hung": 0, "failed": 0, "moved": 1}]}],
//	      "tags": [{"tag": "gpu", "want": 3, "queued": 7, "leased": 4, "retrying": 0}],
//	      "keys": [{"key": "acme", "waiting": 5, "started": 30, "share": 0.75,
//	                "weight": 2, "fair": 0.66}]  // its weighted share among the keys shown
//	    }]
//	  }]
//	}
//
// A figure a stage lacks, or that was not measured in the window, is null
// (shared, workers, tags and keys are left out).
package livepage
