package bench_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"testing"
	"time"

	"github.com/evolvekit/evolve/adaptive"
	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/parallel"
)

const (
	// cpuPrime is the number each job factorises by trial division: a prime,
	// so the job divides by every odd number up to its square root, about
	// 224,000 divisions, which take about 1 ms on the 2-core machine the
	// first figures came from. The benchmark reports what it takes where it
	// runs as ms/job.
	cpuPrime = 200_000_000_041
	// cpuJobs is the jobs per run: about 4.5 s of work on 2 cores, so that
	// the adaptive agent's search at the start (about 170 ms before it holds
	// a limit, a sixth of a 2500-job run) weighs little beside the time it
	// holds one.
	cpuJobs = 10000
	cpuMax  = 16 // the adaptive agent's highest limit
)

// factorise returns the prime factors of n, smallest first, by trial
// division.
func factorise(n uint64) []uint64 {
	var fs []uint64
	for n%2 == 0 {
		fs = append(fs, 2)
		n /= 2
	}
	for d := uint64(3); d*d <= n; d += 2 {
		for n%d == 0 {
			fs = append(fs, d)
			n /= d
		}
	}
	if n > 1 {
		fs = append(fs, n)
	}
	return fs
}

// cpuJob is the work of BenchmarkAdaptiveCPU.
func cpuJob(_ context.Context, n uint64) ([]uint64, error) { return factorise(n), nil }

// jobTime is the median time of one job, alone, over 5 runs.
func jobTime() time.Duration {
	ts := make([]time.Duration, 5)
	for i := range ts {
		t := time.Now()
		factorise(cpuPrime)
		ts[i] = time.Since(t)
	}
	slices.Sort(ts)
	return ts[2]
}

// BenchmarkAdaptiveCPU posts 10,000 CPU-bound jobs (the factorisation of
// cpuPrime, about 1 ms each) as fast as Post takes them, so they arrive far
// faster than they can be served, to an adaptive agent (adaptive.New with
// its default controller, Min 1, Max 16) and to parallel agents with a fixed
// limit of 1, 2, 4 and 8. Each run happens once per call, whatever b.N, and
// reports items/s, the time of one job alone as ms/job, ns/op, B/op and
// allocs/op per job, and for the adaptive agent the limit it ended with.
func BenchmarkAdaptiveCPU(b *testing.B) {
	b.Run("adaptive", func(b *testing.B) {
		cpuRun(b, func(rt *agent.Runtime, sink func(parallel.Result[[]uint64])) (cpuAgent, error) {
			return adaptive.New(rt, adaptive.Config{Min: 1, Max: cpuMax}, cpuJob, sink)
		})
	})
	for _, limit := range []int{1, 2, 4, 8} {
		b.Run(fmt.Sprintf("fixed-%d", limit), func(b *testing.B) {
			cpuRun(b, func(rt *agent.Runtime, sink func(parallel.Result[[]uint64])) (cpuAgent, error) {
				return parallel.New(rt, parallel.Config{Limit: limit}, cpuJob, sink)
			})
		})
	}
}

// BenchmarkAdaptiveCPUBusy is BenchmarkAdaptiveCPU on a machine where
// another process keeps one core busy: a child process (the test binary,
// spinning) factorises cpuPrime in a loop, on one thread, from before each
// run starts until it ends. With the other process taking its share, a
// higher limit buys fewer cores than alone (on 2 cores, two jobs at once
// get about 4/3 of a core, not 2), and each job's service time swings
// with the operating system's time slices.
func BenchmarkAdaptiveCPUBusy(b *testing.B) {
	b.Run("adaptive", func(b *testing.B) {
		startSpinner(b)
		cpuRun(b, func(rt *agent.Runtime, sink func(parallel.Result[[]uint64])) (cpuAgent, error) {
			return adaptive.New(rt, adaptive.Config{Min: 1, Max: cpuMax}, cpuJob, sink)
		})
	})
	for _, limit := range []int{1, 2, 3, 4, 8} {
		b.Run(fmt.Sprintf("fixed-%d", limit), func(b *testing.B) {
			startSpinner(b)
			cpuRun(b, func(rt *agent.Runtime, sink func(parallel.Result[[]uint64])) (cpuAgent, error) {
				return parallel.New(rt, parallel.Config{Limit: limit}, cpuJob, sink)
			})
		})
	}
}

// spinEnv, when set, makes the test binary the spinner of
// BenchmarkAdaptiveCPUBusy instead of running tests: it factorises
// cpuPrime, on one goroutine, until its parent is gone or kills it.
const spinEnv = "EVOLVE_BENCH_SPIN"

// init spins in the child process startSpinner starts; it runs before
// any TestMain, whatever the build tags.
func init() {
	if os.Getenv(spinEnv) == "" {
		return
	}
	parent := os.Getppid()
	for os.Getppid() == parent {
		factorise(cpuPrime)
	}
	os.Exit(0)
}

// startSpinner starts the test binary as a spinner, which keeps one core
// busy until b's cleanup kills it and waits for it to end.
func startSpinner(b *testing.B) {
	b.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), spinEnv+"=1")
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
}

// cpuAgent is what BenchmarkAdaptiveCPU needs of an adaptive or a parallel
// agent.
type cpuAgent interface {
	Post(context.Context, uint64) error
	Close()
	Wait(context.Context) error
}

// cpuRun starts the agent start makes, posts the jobs, waits for the last
// result, checks every result and reports the figures.
func cpuRun(b *testing.B, start func(*agent.Runtime, func(parallel.Result[[]uint64])) (cpuAgent, error)) {
	job := jobTime()
	rt := agent.NewRuntime()
	defer rt.Shutdown(context.Background())
	s := newSeen(cpuJobs)
	sink := func(r parallel.Result[[]uint64]) {
		if r.Err != nil || len(r.Value) != 1 || r.Value[0] != cpuPrime {
			s.dups++
		}
		s.mark(int(r.Seq))
	}
	a, err := start(rt, sink)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	run := startFixed(b)
	for range cpuJobs {
		if err := a.Post(ctx, cpuPrime); err != nil {
			b.Fatal(err)
		}
	}
	a.Close()
	if err := a.Wait(ctx); err != nil {
		b.Fatal(err)
	}
	elapsed := run.done(cpuJobs)
	s.check(b)
	b.ReportMetric(cpuJobs/elapsed.Seconds(), "items/s")
	// The machine's speed drifts: one job alone is timed before the run and
	// after it, and cores uses the mean.
	job = (job + jobTime()) / 2
	b.ReportMetric(float64(job.Microseconds())/1000, "ms/job")
	b.ReportMetric(cpuJobs/elapsed.Seconds()*job.Seconds(), "cores")
	if ad, ok := a.(agent.Handle[uint64, adaptive.Status]); ok {
		st, err := ad.Status(ctx)
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(st.Limit), "limit")
	}
}
