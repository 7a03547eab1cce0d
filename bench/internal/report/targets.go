package report

import (
	"fmt"
	"math"
	"strings"
)

// Target is one of the goals evolve's benchmarks are held to. A benchmark
// reports; it does not fail: a target not met is shown, not enforced.
type Target struct {
	// Goal says what is wanted, as "chain <= 250 ns/item".
	Goal string
	// Figure says what was measured, or why nothing was.
	Figure string
	// Measured is false when the benchmarks it needs did not run.
	Measured bool
	// Met is whether the figure reaches the goal.
	Met bool
}

// Verdict returns "met", "not met" or "not measured".
func (t Target) Verdict() string {
	switch {
	case !t.Measured:
		return "not measured"
	case t.Met:
		return "met"
	default:
		return "not met"
	}
}

// Limits of the targets.
const (
	ChainNsTarget       = 250  // ns per item through BenchmarkChain/evolve, at most
	ChainAllocsTarget   = 1    // allocations per item through it, at most
	ChainConcTarget     = 0.8  // its ns per item over conc's, at most
	ChainChannelsTarget = 1.0  // its ns per item over hand-written channels', at most
	ChainMetricsTarget  = 1.1  // its ns per item with metrics on over off, at most
	AgentRatioTarget    = 0.5  // one agent's msg/s over a bare protoactor actor's, at least
	RateErrTarget       = 0.2  // |err%| of the rate agent at each rate, at most
	AdaptiveTarget      = 0.97 // adaptive items/s over the best fixed limit's, at least

	RemoteRatioTarget  = 1.5     // remote items/s with 2 workers over raw protoactor one-way msg/s, at least
	RemoteItemsTarget  = 100_000 // remote items/s with 2 workers, at least
	RemoteAllocsTarget = 0.5     // allocations per item on the master with 2 workers, at most

	FarRatioTarget = 0.9 // a far worker's items/s with prefetch over the loopback's, at least

	DurableRatioTarget = 0.9    // durable chain items/s over raw JetStream fetch-and-ack items/s, at least
	DurableItemsTarget = 50_000 // durable chain items/s, at least, with the default sync
	DurableAddTarget   = 1.0    // AddMany's items/s over raw JetStream publishing's of the same messages, at least

	ScaleCPUTarget   = 1.25 // CPU per item of many in flight over goroutines and a semaphore's, at most
	ScaleItemsTarget = 0.9  // items/s over theirs, at least, where theirs reach ScaleItemsTarget of the ideal

	SimTarget = 3_000_000 // simulated messages a second for the 3-stage chain, at least

	SharedRateErrTarget   = 0.5 // |err%| of the chain with a shared limit at each rate, at most
	SharedRateRatioTarget = 0.9 // its items/s over the chain with a local rate's at each rate, at least
)

// Rates are the configured rates of BenchmarkRate, in items a second.
var Rates = []string{"1000", "10000", "100000"}

// ScaleLimits are the limits of BenchmarkScale the targets of many in
// flight are held to.
var ScaleLimits = []string{"100", "1000", "10000"}

// Targets evaluates every target against m.
func Targets(m Medians) []Target {
	return []Target{chainNs(m), chainAllocs(m),
		chainOver(m, "conc", "chain <= 0.8× conc (ns/item)", ChainConcTarget),
		chainOver(m, "channels", "chain <= 1.0× hand-written channels (ns/item)", ChainChannelsTarget),
		chainMetrics(m),
		agentRatio(m), rateErr(m), adaptiveBest(m),
		remoteRatio(m), remoteItems(m), remoteAllocs(m), farRatio(m),
		durableRatio(m), durableItems(m), durableAdd(m),
		scaleCPU(m), scaleItems(m), simSpeed(m),
		sharedRateErr(m), sharedRateRatio(m)}
}

func notMeasured(goal, missing string) Target {
	return Target{Goal: goal, Figure: missing + " did not run"}
}

func chainNs(m Medians) Target {
	const goal = "chain <= 250 ns/item"
	ns, ok := m.Get("Chain/evolve", "ns/op")
	if !ok {
		return notMeasured(goal, "Chain/evolve")
	}
	return Target{Goal: goal, Figure: Num(ns) + " ns/item", Measured: true, Met: ns <= ChainNsTarget}
}

func chainAllocs(m Medians) Target {
	const goal = "chain <= 1 alloc/item"
	allocs, ok := m.Get("Chain/evolve", "allocs/op")
	if !ok {
		return notMeasured(goal, "Chain/evolve with -benchmem")
	}
	return Target{Goal: goal, Figure: Num(allocs) + " allocs/item", Measured: true, Met: allocs <= ChainAllocsTarget}
}

// chainOver holds evolve's ns per item in BenchmarkChain over those of the
// variant peer to at most limit.
func chainOver(m Medians, peer, goal string, limit float64) Target {
	r, ok := m.Over("Chain/evolve", "ns/op", "Chain/"+peer, "ns/op")
	if !ok {
		return notMeasured(goal, "Chain/evolve or Chain/"+peer)
	}
	return Target{Goal: goal, Figure: Ratio(r), Measured: true, Met: r <= limit}
}

// chainMetrics holds BenchmarkChain's evolve with metrics on to its ns
// per item with them off.
func chainMetrics(m Medians) Target {
	const goal = "chain with metrics <= 1.1× without (ns/item)"
	r, ok := m.Over("Chain/evolve-metrics", "ns/op", "Chain/evolve", "ns/op")
	if !ok {
		return notMeasured(goal, "Chain/evolve or Chain/evolve-metrics")
	}
	return Target{Goal: goal, Figure: Ratio(r), Measured: true, Met: r <= ChainMetricsTarget}
}

// AgentRatio returns evolve's msg/s over protoactor's in BenchmarkAgent.
func AgentRatio(m Medians) (float64, bool) {
	return m.Over("Agent/evolve", "msg/s", "Agent/protoactor", "msg/s")
}

func agentRatio(m Medians) Target {
	const goal = "one agent >= 0.5× raw protoactor (msg/s)"
	r, ok := AgentRatio(m)
	if !ok {
		return notMeasured(goal, "Agent/evolve or Agent/protoactor")
	}
	return Target{Goal: goal, Figure: Ratio(r), Measured: true, Met: r >= AgentRatioTarget}
}

func rateErr(m Medians) Target {
	const goal = "rate |err| <= 0.2% at 1,000, 10,000 and 100,000/s (burst 10 ms)"
	var figs []string
	worst := 0.0
	for _, r := range Rates {
		e, ok := m.Get("Rate/evolve/"+r, "err%")
		if !ok {
			return notMeasured(goal, "Rate/evolve/"+r)
		}
		worst = max(worst, math.Abs(e))
		figs = append(figs, Signed(e)+"%")
	}
	return Target{Goal: goal, Figure: strings.Join(figs, ", "), Measured: true, Met: worst <= RateErrTarget}
}

// BestFixed returns the variant of BenchmarkAdaptiveCPU with a fixed limit
// and the highest items/s ("fixed-2"), and its items/s.
func BestFixed(m Medians) (string, float64, bool) { return bestFixedIn(m, "AdaptiveCPU") }

// bestFixedIn returns the variant of the benchmark family fam with a fixed
// limit and the highest items/s, and its items/s.
func bestFixedIn(m Medians, fam string) (string, float64, bool) {
	best, bestV, found := "", 0.0, false
	for _, name := range m.Names {
		v, ok := m.Get(name, "items/s")
		variant, isFixed := strings.CutPrefix(name, fam+"/")
		if !ok || !isFixed || !strings.HasPrefix(variant, "fixed-") {
			continue
		}
		if !found || v > bestV {
			best, bestV, found = variant, v, true
		}
	}
	return best, bestV, found
}

// AdaptiveRatio returns the adaptive agent's items/s over the best fixed
// limit's in BenchmarkAdaptiveCPU, and that limit's variant name.
func AdaptiveRatio(m Medians) (float64, string, bool) {
	best, _, found := BestFixed(m)
	if !found {
		return 0, "", false
	}
	r, ok := m.Over("AdaptiveCPU/adaptive", "items/s", "AdaptiveCPU/"+best, "items/s")
	return r, best, ok
}

func adaptiveBest(m Medians) Target {
	const goal = "adaptive >= 0.97× the best fixed limit (items/s)"
	r, best, ok := AdaptiveRatio(m)
	if !ok {
		return notMeasured(goal, "AdaptiveCPU/adaptive or AdaptiveCPU/fixed-N")
	}
	return Target{Goal: goal, Figure: fmt.Sprintf("%s of %s", Ratio(r), best), Measured: true, Met: r >= AdaptiveTarget}
}

// remoteTargeted is the benchmark the remote targets are held to.
const remoteTargeted = "Remote/workers-2"

// RemoteRatio returns the items/s of a BenchmarkRemote variant (such as
// "Remote/workers-2") over the msg/s of BenchmarkRemoteRaw; for
// "RemoteRaw" itself, 1.
func RemoteRatio(m Medians, name string) (float64, bool) {
	unit := "items/s"
	if name == "RemoteRaw" {
		unit = "msg/s"
	}
	return m.Over(name, unit, "RemoteRaw", "msg/s")
}

func remoteRatio(m Medians) Target {
	const goal = "remote, 2 workers >= 1.5× raw protoactor one way (items/s ÷ msg/s)"
	r, ok := RemoteRatio(m, remoteTargeted)
	if !ok {
		return notMeasured(goal, remoteTargeted+" or RemoteRaw")
	}
	return Target{Goal: goal, Figure: Ratio(r), Measured: true, Met: r >= RemoteRatioTarget}
}

func remoteItems(m Medians) Target {
	const goal = "remote, 2 workers >= 100,000 items/s"
	v, ok := m.Get(remoteTargeted, "items/s")
	if !ok {
		return notMeasured(goal, remoteTargeted)
	}
	return Target{Goal: goal, Figure: Num(v) + " items/s", Measured: true, Met: v >= RemoteItemsTarget}
}

func remoteAllocs(m Medians) Target {
	const goal = "remote, 2 workers <= 0.5 allocs/item on the master"
	v, ok := m.Get(remoteTargeted, "allocs/item")
	if !ok {
		return notMeasured(goal, remoteTargeted)
	}
	return Target{Goal: goal, Figure: Num(v) + " allocs/item", Measured: true, Met: v <= RemoteAllocsTarget}
}

// FarRatio returns BenchmarkRemoteFar's items/s of a worker 100 ms away
// with prefetch over the loopback's with the same prefetch.
func FarRatio(m Medians) (float64, bool) {
	return m.Over("RemoteFar/far-prefetch", "items/s", "RemoteFar/loopback-prefetch", "items/s")
}

func farRatio(m Medians) Target {
	const goal = "a worker 100 ms away, with prefetch, >= 0.9× the loopback (items/s)"
	r, ok := FarRatio(m)
	if !ok {
		return notMeasured(goal, "RemoteFar/far-prefetch or RemoteFar/loopback-prefetch")
	}
	return Target{Goal: goal, Figure: Ratio(r), Measured: true, Met: r >= FarRatioTarget}
}

// DurableRatio returns the items/s of the Durable benchmark name over raw
// JetStream's, and whether both ran.
func DurableRatio(m Medians, name string) (float64, bool) {
	return m.Over(name, "items/s", "Durable/raw", "items/s")
}

func durableRatio(m Medians) Target {
	const goal = "durable chain >= 0.9× raw JetStream fetch-and-ack (items/s)"
	r, ok := DurableRatio(m, "Durable/durable")
	if !ok {
		return notMeasured(goal, "Durable/durable or Durable/raw")
	}
	return Target{Goal: goal, Figure: Ratio(r), Measured: true, Met: r >= DurableRatioTarget}
}

func durableItems(m Medians) Target {
	const goal = "durable chain >= 50,000 items/s"
	v, ok := m.Get("Durable/durable", "items/s")
	if !ok {
		return notMeasured(goal, "Durable/durable")
	}
	return Target{Goal: goal, Figure: Num(v) + " items/s", Measured: true, Met: v >= DurableItemsTarget}
}

// durableAdd holds AddMany to raw publishing of the same messages to a
// stream and consumer configured as a queue's: the server's part of the
// work, without evolve.
func durableAdd(m Medians) Target {
	const goal = "durable AddMany >= 1.0× raw JetStream publishing of the same messages (items/s)"
	r, ok := m.Over("Durable/add", "items/s", "Durable/raw-publish-like", "items/s")
	if !ok {
		return notMeasured(goal, "Durable/add or Durable/raw-publish-like")
	}
	return Target{Goal: goal, Figure: Ratio(r), Measured: true, Met: r >= DurableAddTarget}
}

// ScaleOver returns BenchmarkScale's figure in unit of the variant v (as
// "evolve") at limit (as "1000") over goroutines and a semaphore's.
func ScaleOver(m Medians, limit, v, unit string) (float64, bool) {
	return m.Over("Scale/limit="+limit+"/"+v, unit, "Scale/limit="+limit+"/goroutines", unit)
}

// scaleCPU holds the CPU an item of evolve's, in input order or not, to
// that of goroutines and a semaphore at each of ScaleLimits.
func scaleCPU(m Medians) Target {
	const goal = "many in flight: CPU per item <= 1.25× goroutines and a semaphore at 100, 1,000 and 10,000"
	var figs []string
	worst := 0.0
	for _, l := range ScaleLimits {
		for _, v := range []string{"evolve", "evolve-unordered"} {
			r, ok := ScaleOver(m, l, v, "cpu-ns/op")
			if !ok {
				return notMeasured(goal, "Scale/limit="+l+"/"+v+" or goroutines, with cpu-ns/op")
			}
			worst = max(worst, r)
		}
		r1, _ := ScaleOver(m, l, "evolve", "cpu-ns/op")
		r2, _ := ScaleOver(m, l, "evolve-unordered", "cpu-ns/op")
		figs = append(figs, Ratio(r1)+" / "+Ratio(r2))
	}
	return Target{Goal: goal, Figure: strings.Join(figs, ", ") + " (in order / unordered)", Measured: true, Met: worst <= ScaleCPUTarget}
}

// scaleItems holds evolve's items/s, in input order or not, to at least
// ScaleItemsTarget of goroutines and a semaphore's at each of ScaleLimits
// where those reach ScaleItemsTarget of the ideal.
func scaleItems(m Medians) Target {
	const goal = "many in flight: items/s >= 0.9× goroutines and a semaphore wherever they reach 0.9 of the ideal"
	var figs []string
	met := true
	for _, l := range ScaleLimits {
		ideal, ok := m.Get("Scale/limit="+l+"/goroutines", "of-ideal")
		if !ok {
			return notMeasured(goal, "Scale/limit="+l+"/goroutines")
		}
		r1, ok1 := ScaleOver(m, l, "evolve", "items/s")
		r2, ok2 := ScaleOver(m, l, "evolve-unordered", "items/s")
		if !ok1 || !ok2 {
			return notMeasured(goal, "Scale/limit="+l+"/evolve or evolve-unordered")
		}
		fig := Ratio(r1) + " / " + Ratio(r2)
		if ideal < ScaleItemsTarget {
			fig += " (theirs " + Ratio(ideal) + " of the ideal: not held)"
		} else if min(r1, r2) < ScaleItemsTarget {
			met = false
		}
		figs = append(figs, fig)
	}
	return Target{Goal: goal, Figure: strings.Join(figs, ", "), Measured: true, Met: met}
}

func simSpeed(m Medians) Target {
	const goal = "simulator >= 3,000,000 msgs/s (rate, parallel, buffer)"
	v, ok := m.Get("Sim", "msgs/s")
	if !ok {
		return notMeasured(goal, "Sim")
	}
	return Target{Goal: goal, Figure: Num(v) + " msgs/s", Measured: true, Met: v >= SimTarget}
}

// SharedRateRatio returns the items/s of BenchmarkSharedRate's shared chain
// at rate r (as "1000") over its local chain's, and whether both ran.
func SharedRateRatio(m Medians, r string) (float64, bool) {
	return m.Over("SharedRate/"+r+"/shared", "items/s", "SharedRate/"+r+"/local", "items/s")
}

func sharedRateErr(m Medians) Target {
	const goal = "shared rate |err| <= 0.5% at 1,000, 10,000 and 100,000/s (one process)"
	var figs []string
	worst := 0.0
	for _, r := range Rates {
		e, ok := m.Get("SharedRate/"+r+"/shared", "err%")
		if !ok {
			return notMeasured(goal, "SharedRate/"+r+"/shared")
		}
		worst = max(worst, math.Abs(e))
		figs = append(figs, Signed(e)+"%")
	}
	return Target{Goal: goal, Figure: strings.Join(figs, ", "), Measured: true, Met: worst <= SharedRateErrTarget}
}

func sharedRateRatio(m Medians) Target {
	const goal = "shared rate >= 0.9× a local rate at each rate (items/s)"
	var figs []string
	worst := math.Inf(1)
	for _, r := range Rates {
		x, ok := SharedRateRatio(m, r)
		if !ok {
			return notMeasured(goal, "SharedRate/"+r+"/local or /shared")
		}
		worst = min(worst, x)
		figs = append(figs, Ratio(x))
	}
	return Target{Goal: goal, Figure: strings.Join(figs, ", "), Measured: true, Met: worst >= SharedRateRatioTarget}
}
