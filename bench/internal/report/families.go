package report

import (
	"fmt"
	"slices"
	"strings"
)

// family says how to show one benchmark family.
type family struct {
	name  string // as after "Benchmark": "Chain"
	about string // what it measures, one paragraph
	per   string // what one op is: "item" (the default) or "msg"
	ratio *ratio
	extra func(*printer, Medians)
	// also names other families shown in this one's section, and table,
	// when set, replaces the table of every figure.
	also  []string
	table func(*printer, Medians)
}

// ratio is a column comparing each variant with evolve's.
type ratio struct {
	header string
	about  string
	cell   func(m Medians, variant string) string
}

// families are the benchmark families of package bench, in the order the
// report shows them.
var families = []family{
	{
		name: "Chain",
		about: "Items through at most 4 workers computing x*2+1, then batches of 100, to a sink that\n" +
			"checks every item arrived once. evolve: a compose chain of a rate stage with no real\n" +
			"limit, a parallel stage (limit 4, output in input order) and a buffer stage; channels:\n" +
			"4 long-lived workers and a batcher; conc, errgroup, ants: a pool of 4 and one task per\n" +
			"item, then the same batcher. The peers do not keep input order.",
		ratio: &ratio{
			header: "this ns ÷ evolve ns",
			about:  "Above 1, evolve is faster than that variant; below 1, slower.",
			cell:   timeOverEvolve("Chain"),
		},
	},
	{
		name: "Agent",
		about: "Messages posted one by one to one agent whose evolve counts them and gives each input\n" +
			"slot back, against Root.Send to a bare protoactor actor that counts them.",
		per: "msg",
		ratio: &ratio{
			header: "evolve msg/s ÷ this msg/s",
			about:  "Below 1, the bare actor carries more messages a second than an agent.",
			cell: func(m Medians, v string) string {
				return ratioCell(m.Over("Agent/evolve", "msg/s", "Agent/"+v, "msg/s"))
			},
		},
	},
	{
		name: "Rate",
		about: "About a second of items through each limiter, each item taken as soon as the limiter\n" +
			"allows, at 1,000, 10,000 and 100,000 items a second. `Rate/LIMITER/RATE` has a burst of\n" +
			"10 ms of tokens (RATE/100); `Rate/burst-1/LIMITER/RATE` a burst of 1. evolve: a rate agent\n" +
			"fed by a goroutine with Post; xrate: `Wait` on golang.org/x/time/rate's Limiter before each\n" +
			"item; uber: `Take` on go.uber.org/ratelimit with `WithSlack(burst)` (`WithoutSlack` for a\n" +
			"burst of 1). After a warm-up (the burst and 100 ms), the achieved rate is the items\n" +
			"passed over the time they took; err% = 100 × (achieved − configured) / configured.\n" +
			"A run stops offering items after 2 s. ns/item is the whole run's time per item.",
		extra: rateSummary,
	},
	{
		name: "SharedRate",
		about: "The Chain chain (a rate stage, a parallel stage of 4 computing x*2+1, batches of 100)\n" +
			"with a real rate of 1,000, 10,000 and 100,000 items a second and a burst of 10 ms of\n" +
			"tokens. local: the rate stage's own bucket. shared: a limit of that rate and burst that\n" +
			"the stage shares through a durable queue embedded in the process (`Queue.Limit`, given\n" +
			"as `rate.Config.Shared`), with this one process alone on it, so it should be granted the\n" +
			"whole limit. Items are posted for 3 s, more than the rate lets through. An item passes as\n" +
			"the parallel stage starts it; items/s counts from the first item passed after a burst's\n" +
			"worth to the last one, so neither the local bucket's first burst nor the shared stage's\n" +
			"wait for its first grant is in it: first-ms, from the chain's start to its first item,\n" +
			"shows that wait. err% = 100 × (items/s − rate) / rate.",
		table: sharedRateTable,
	},
	{
		name: "Overload",
		about: "20,000 items of 4 KiB each from a producer that makes them as fast as it can, through\n" +
			"4 workers and batches of 100, to a sink that takes 100 µs an item. evolve: the Chain\n" +
			"chain, fed with a blocking Post; unbounded: the producer appends to a slice-backed queue\n" +
			"that never blocks, 4 workers take from it. peak-heap-MB is the highest reading of the\n" +
			"heap's object bytes, sampled every millisecond.",
		ratio: &ratio{
			header: "this heap ÷ evolve heap",
			about:  "How many times evolve's peak heap the variant needed.",
			cell: func(m Medians, v string) string {
				return ratioCell(m.Over("Overload/"+v, "peak-heap-MB", "Overload/evolve", "peak-heap-MB"))
			},
		},
	},
	{
		name: "Scale",
		about: "Items whose work sleeps 5 to 15 ms (seeded), 40 times the limit of them, at a limit of\n" +
			"10, 100, 1,000 and 10,000 in flight. evolve: a parallel agent with that Limit and a Queue\n" +
			"of twice it, in input order, and evolve-unordered; goroutines: a goroutine per item\n" +
			"behind a semaphore of the limit; conc: pool.New().WithMaxGoroutines(limit). of-ideal is\n" +
			"items/s over limit ÷ mean sleep; peak-MB the highest reading of the heap's object bytes\n" +
			"plus the goroutine stacks, sampled every millisecond; cpu-ns/item the process's CPU time\n" +
			"(user and system) over the run, per item. The evolve runs share one runtime,\n" +
			"made before them as a program makes one for all its agents (NewRuntime below says what\n" +
			"making one costs).",
		ratio: &ratio{
			header: "items/s ÷ goroutines items/s",
			about: "The targets for evolve: at least 0.9× goroutines and a semaphore's items/s wherever\n" +
				"they reach 0.9 of the ideal, and at most 1.25× their CPU per item, from 100 to 10,000.",
			cell: func(m Medians, v string) string {
				limit, _, _ := strings.Cut(v, "/")
				return ratioCell(m.Over("Scale/"+v, "items/s", "Scale/"+limit+"/goroutines", "items/s"))
			},
		},
	},
	{
		name: "NewRuntime",
		per:  "runtime",
		about: "Making an agent.Runtime and shutting it down: B/runtime is what that allocates (most of\n" +
			"it protoactor's process registry, which NewRuntime replaces with a small one at once, so\n" +
			"the next GC collects it); kept-KB what an open runtime with no agent keeps on the heap.",
	},
	{
		name: "AdaptiveCPU",
		about: "10,000 CPU-bound jobs (trial division of a prime near 2×10¹¹; ms/job is one job alone)\n" +
			"posted as fast as they are taken, far faster than they are served. adaptive: an adaptive\n" +
			"agent with its default controller, limits 1 to 16, ending at `limit`; fixed-N: a parallel\n" +
			"agent with limit N. cores is items/s times ms/job, the cores' worth of jobs done: a check\n" +
			"on items/s when the machine's speed changes during the run.",
		ratio: &ratio{
			header: "items/s ÷ best fixed",
			about:  fmt.Sprintf("The adaptive agent's target is at least %.2f× the best fixed limit.", AdaptiveTarget),
			cell: func(m Medians, v string) string {
				best, _, ok := BestFixed(m)
				if !ok {
					return ""
				}
				return ratioCell(m.Over("AdaptiveCPU/"+v, "items/s", "AdaptiveCPU/"+best, "items/s"))
			},
		},
	},
	{
		name: "AdaptiveCPUBusy",
		about: "AdaptiveCPU beside another process that keeps one core busy (the test binary,\n" +
			"factorising the same prime in a loop), started before each run and stopped after it,\n" +
			"with one more fixed limit, 3. ms/job is one job alone with that process running.",
		ratio: &ratio{
			header: "items/s ÷ best fixed",
			about:  "The figures follow the rest of the machine's load closely: see docs/adaptive.md.",
			cell: func(m Medians, v string) string {
				best, _, ok := bestFixedIn(m, "AdaptiveCPUBusy")
				if !ok {
					return ""
				}
				return ratioCell(m.Over("AdaptiveCPUBusy/"+v, "items/s", "AdaptiveCPUBusy/"+best, "items/s"))
			},
		},
	},
	{
		name: "Remote",
		about: "b.N ints posted one by one to a remote stage (remote.New on its own, its node on the\n" +
			"loopback) whose workers, 1 or 2 processes running the test binary, double them; the\n" +
			"sink checks every result. Settings for tiny items, a deep pipeline rather than many\n" +
			"slots: each worker has 64 slots and a prefetch of 2,048 (MaxPrefetch 2,048), a message\n" +
			"to a worker carries at most 512 items, Queue 2,048, Window 8,192, the JSON codec.\n" +
			"The workers are started and registered, and a first 100,000 items have gone through,\n" +
			"before the timer starts; it stops once Close and Wait have returned. RemoteRaw: b.N\n" +
			"`wrapperspb.Int64Value`s sent one way with Root.Send, over protoactor remote on the\n" +
			"loopback, to an actor in a child process that counts them and answers once it has them\n" +
			"all, after a first 100,000 sent and counted. start-ms is how long those first 100,000\n" +
			"took: the start, which both leave out of the timed part. Allocations and bytes are those\n" +
			"of the benchmark's process alone (the master, or the raw sender), over the timed part.",
		also:  []string{"RemoteRaw"},
		table: remoteTable,
	},
	{
		name: "RemoteFar",
		about: "b.N ints posted to a remote stage whose one worker process has 8 slots and sleeps 5 ms\n" +
			"on each item: on the loopback, and through a TCP proxy on 127.0.0.1 that holds what\n" +
			"the worker sends its master for 100 ms (a round trip of 100 ms), each without\n" +
			"prefetch and with a prefetch of 256 items. items/s counts from the first Post to the\n" +
			"last result. A worker whose slots never wait does 1,600 items/s at most.",
	},
	{
		name: "Durable",
		about: "b.N tiny items (ints, keyed) through the Chain benchmark's chain (rate with no real\n" +
			"limit, parallel of 4, batches of 100) on a durable queue embedded in a directory (NATS\n" +
			"JetStream in the process): added before the timer, then durable.Consume until the queue\n" +
			"is empty, every item acknowledged after its batch reached the sink. durable-sync: the\n" +
			"same with every write synced to the disk. memory: the same chain fed with Post, no\n" +
			"queue. raw: raw JetStream on the same kind of embedded server, the messages published\n" +
			"before the timer, then fetched 256 at a time with a pull consumer and each acknowledged,\n" +
			"until the server has deleted them all (an acknowledgement is sent without waiting).\n" +
			"add: q.AddMany of b.N items; raw-publish: b.N messages published asynchronously to a\n" +
			"stream on the same kind of server, each with a message ID, until all are acknowledged;\n" +
			"raw-publish-like: the same messages to a stream and consumer configured as those of a\n" +
			"queue with the default Config (items kept until their window ends, per-message TTLs,\n" +
			"rollups and direct gets allowed): the server's work for AddMany's items, without evolve.",
		table: durableTable,
	},
	{
		name: "Large",
		per:  "payload",
		about: "b.N payloads of 5 MB (five times a NATS message's default bound); MB/s is 10^6 bytes a\n" +
			"second. durable: a durable queue embedded in a directory, its codec the bytes as they\n" +
			"are: Add of each payload (stored apart, in the queue's Object Store bucket), then\n" +
			"durable.Consume through a parallel stage of 2 until the queue is empty, every payload\n" +
			"read back, checked against its SHA-256, acknowledged and deleted. objectstore: the NATS\n" +
			"client alone on the same kind of server: PutBytes of each payload, then GetBytes and\n" +
			"Delete of each.",
	},
	{
		name: "RemoteLarge",
		per:  "payload",
		about: "b.N payloads of 5 MB from this process to one worker process on the loopback; MB/s is\n" +
			"10^6 bytes a second. stage-length: a remote stage (its codec the bytes as they are,\n" +
			"MaxBatch 4) whose worker's result is the payload's length; stage-item: the same, the\n" +
			"result the payload itself, so 5 MB travel each way; raw: protoactor alone, each payload\n" +
			"a wrapperspb.BytesValue sent with Root.Send to an actor of the child that counts its\n" +
			"bytes, one envelope a gRPC message. The worker is registered, or the connection opened,\n" +
			"before the timer starts.",
	},
	{
		name: "Sim",
		per:  "run",
		about: "The chain rate -> parallel(4) -> buffer(100) in package sim, under overload, for 10\n" +
			"virtual seconds a run: the rate stage lets 5,000 items a second through, the work takes\n" +
			"1 ms (noisy) at up to 4 at once, the flushes 2 ms. msgs/s counts the messages delivered\n" +
			"to the agents' evolve functions a second of wall time.",
	},
	{
		name: "Trace",
		per:  "item",
		about: "The Chain benchmark's evolve chain with tracing off, and on with an OpenTelemetry SDK\n" +
			"tracer provider whose spans go to a batch processor and an exporter that drops them:\n" +
			"every item sampled (always), one in a hundred (ratio-0.01), and none (never). Each item\n" +
			"makes three stage spans and an attempt span; each batch one span with a hundred links.",
	},
}

// durableTable writes the Durable section's table: items/s, and its ratio
// to raw JetStream's fetch and acknowledge, or for the publishing variants
// to the next one down (add to raw-publish-like, that to raw-publish).
func durableTable(p *printer, m Medians) {
	p.row([]string{"variant", "items/s", "÷ raw JetStream items/s (add: ÷ raw-publish-like; raw-publish-like: ÷ raw-publish)"})
	p.row(slices.Repeat([]string{"---"}, 3))
	over := map[string]string{"add": "Durable/raw-publish-like", "raw-publish-like": "Durable/raw-publish"}
	for _, v := range []string{"durable", "durable-sync", "memory", "raw", "add", "raw-publish-like", "raw-publish"} {
		name := "Durable/" + v
		if m.Runs[name] == 0 {
			continue
		}
		ratio := ""
		if x, ok := DurableRatio(m, name); ok && !strings.HasPrefix(v, "raw-publish") && v != "add" {
			ratio = Ratio(x)
		}
		if x, ok := m.Over(name, "items/s", over[v], "items/s"); ok && over[v] != "" {
			ratio = Ratio(x)
		}
		p.row([]string{v, cell(m, name, "items/s"), ratio})
	}
	p.printf("\n")
}

// sharedRateTable writes the SharedRate section's table: a row a rate,
// the local and shared chains side by side.
func sharedRateTable(p *printer, m Medians) {
	p.row([]string{"rate", "local items/s", "local err%", "shared items/s", "shared err%", "shared ÷ local items/s", "shared first-ms", "local first-ms"})
	p.row(slices.Repeat([]string{"---"}, 8))
	for _, r := range Rates {
		local, shared := "SharedRate/"+r+"/local", "SharedRate/"+r+"/shared"
		if m.Runs[local] == 0 && m.Runs[shared] == 0 {
			continue
		}
		ratio := ""
		if x, ok := SharedRateRatio(m, r); ok {
			ratio = Ratio(x)
		}
		p.row([]string{r + "/s", cell(m, local, "items/s"), cell(m, local, "err%"), cell(m, shared, "items/s"), cell(m, shared, "err%"),
			ratio, cell(m, shared, "first-ms"), cell(m, local, "first-ms")})
	}
	p.printf("\nThe targets, at every rate: the shared chain's |err%%| at most %v%%, and its items/s at\nleast %v× the local chain's.\n\n",
		SharedRateErrTarget, SharedRateRatioTarget)
}

// remoteRows are the rows of the Remote table: the benchmark and its label.
var remoteRows = [][2]string{
	{"RemoteRaw", "raw protoactor, one way"},
	{"Remote/workers-1", "remote stage, 1 worker"},
	{"Remote/workers-2", "remote stage, 2 workers"},
}

// remoteTable writes the Remote section's table: items/s (msg/s for the raw
// sends), its ratio to the raw msg/s, the master's figures per item, the
// CPU time per item of both sides, and the start.
func remoteTable(p *printer, m Medians) {
	p.row([]string{"benchmark", "what", "items/s (msg/s)", "÷ raw msg/s", "allocs/item on the master", "B/item on the master", "ns/item",
		"CPU ns/item, both sides", "start-ms"})
	p.row(slices.Repeat([]string{"---"}, 9))
	for _, r := range remoteRows {
		if m.Runs[r[0]] == 0 {
			continue
		}
		rate, allocs, cpu := "msg/s", "allocs/msg", [2]string{"sender-cpu-ns/msg", "sink-cpu-ns/msg"}
		if r[0] != "RemoteRaw" {
			rate, allocs, cpu = "items/s", "allocs/item", [2]string{"master-cpu-ns/item", "workers-cpu-ns/item"}
		}
		ratio := ""
		if x, ok := RemoteRatio(m, r[0]); ok {
			ratio = Ratio(x)
		}
		both := ""
		x, ok1 := m.Get(r[0], cpu[0])
		y, ok2 := m.Get(r[0], cpu[1])
		if ok1 && ok2 {
			both = Num(x + y)
		}
		p.row([]string{r[0], r[1], cell(m, r[0], rate), ratio, cell(m, r[0], allocs), cell(m, r[0], "B/op"), cell(m, r[0], "ns/op"),
			both, cell(m, r[0], "start-ms")})
	}
	p.printf("\n")
}

// ratioCell is a table's cell for the ratio r, empty when ok is false.
func ratioCell(r float64, ok bool) string {
	if !ok {
		return ""
	}
	return Ratio(r)
}

// timeOverEvolve returns a cell function that divides a variant's ns/op by
// evolve's in family fam.
func timeOverEvolve(fam string) func(Medians, string) string {
	return func(m Medians, v string) string {
		return ratioCell(m.Over(fam+"/"+v, "ns/op", fam+"/evolve", "ns/op"))
	}
}

// rateSummary writes err% by rate and limiter, one table per burst.
func rateSummary(p *printer, m Medians) {
	limiters := rateLimiters(m)
	for _, burst := range []struct{ title, prefix string }{{"burst 10 ms", "Rate/"}, {"burst 1", "Rate/burst-1/"}} {
		p.printf("err%% by rate, %s:\n\n", burst.title)
		p.row(append([]string{"rate"}, limiters...))
		p.row(slices.Repeat([]string{"---"}, len(limiters)+1))
		for _, r := range Rates {
			cells := []string{r + "/s"}
			for _, l := range limiters {
				cells = append(cells, cell(m, burst.prefix+l+"/"+r, "err%"))
			}
			p.row(cells)
		}
		p.printf("\n")
	}
}

// rateLimiters returns the limiters of BenchmarkRate in the order they ran.
func rateLimiters(m Medians) []string {
	var ls []string
	for _, v := range variantsOf(m, "Rate") {
		l, _, _ := strings.Cut(v, "/")
		if l != "burst-1" && !slices.Contains(ls, l) {
			ls = append(ls, l)
		}
	}
	return ls
}
