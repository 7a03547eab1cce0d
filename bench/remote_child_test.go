//go:build !race

// The remote benchmarks run protoactor remote for real, between this process
// and children it starts. They are left out of builds with the race detector:
// protoactor's remote writes fields without a lock as it starts and shuts
// down, which the detector reports in any program that starts and stops it.

package bench_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"runtime/pprof"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/asynkron/protoactor-go/actor"
	pr "github.com/asynkron/protoactor-go/remote"
	"github.com/evolvekit/evolve/remote"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

// childEnv, when set, makes the test binary one of the processes the remote
// benchmarks start instead of running them:
//
//	worker ADDR STAGE SLOTS [WORK PREFETCH]
//	                          a worker of the remote stage STAGE at ADDR,
//	                          doubling ints on SLOTS slots, each after
//	                          sleeping WORK, with WorkerConfig.Prefetch
//	                          PREFETCH (0: the default)
//	sink                      the counting actor of BenchmarkRemoteRaw
//
// Either prints one line once it is ready: "ready" for a worker, the
// address of its node for the sink.
const childEnv = "EVOLVE_BENCH_CHILD"

func TestMain(m *testing.M) {
	if spec := os.Getenv(childEnv); spec != "" {
		os.Exit(runChild(strings.Fields(spec)))
	}
	os.Exit(m.Run())
}

// runChild is a child process's main.
func runChild(args []string) int {
	var err error
	switch {
	case len(args) == 4 && args[0] == "worker":
		err = runWorker(args[1], args[2], args[3], "0s", "0")
	case len(args) == 6 && args[0] == "worker":
		err = runWorker(args[1], args[2], args[3], args[4], args[5])
	case len(args) == 1 && args[0] == "sink":
		err = runSink()
	default:
		err = fmt.Errorf("bad %s %q", childEnv, strings.Join(args, " "))
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench child:", err)
		return 1
	}
	return 0
}

// runWorker works for the stage at master until the stage finishes: the
// work sleeps workText, then doubles an int.
func runWorker(master, stage, slotsText, workText, prefetchText string) error {
	slots, err := strconv.Atoi(slotsText)
	if err != nil {
		return err
	}
	work, err := time.ParseDuration(workText)
	if err != nil {
		return err
	}
	prefetch, err := strconv.Atoi(prefetchText)
	if err != nil {
		return err
	}
	if path := os.Getenv(workerProfileEnv); path != "" {
		stop, err := profileCPU(path + "." + strconv.Itoa(os.Getpid()))
		if err != nil {
			return err
		}
		defer stop()
	}
	if path := os.Getenv(workerMemProfileEnv); path != "" {
		defer writeAllocs(path + "." + strconv.Itoa(os.Getpid()))
	}
	fmt.Println("ready")
	return remote.Work(context.Background(), remote.WorkerConfig{Master: master, Stage: stage, Slots: slots, Prefetch: prefetch},
		func(_ context.Context, v int) (int, error) {
			if work > 0 {
				time.Sleep(work)
			}
			return 2 * v, nil
		})
}

// workerProfileEnv, when set to a path in the benchmark's environment,
// makes each worker write its CPU profile to that path with ".PID" added:
// go test's -cpuprofile profiles only the master's process.
const workerProfileEnv = "EVOLVE_BENCH_WORKER_CPUPROFILE"

// workerMemProfileEnv, when set to a path in the benchmark's environment,
// makes each worker write the profile of its allocations to that path with
// ".PID" added, as it ends.
const workerMemProfileEnv = "EVOLVE_BENCH_WORKER_MEMPROFILE"

// writeAllocs writes the profile of this process's allocations to path;
// it cannot fail the worker, so a failure is only told on stderr.
func writeAllocs(path string) {
	f, err := os.Create(path)
	if err == nil {
		err = errors.Join(pprof.Lookup("allocs").WriteTo(f, 0), f.Close())
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench child: allocation profile:", err)
	}
}

// profileCPU starts a CPU profile written to path, and returns what stops
// it.
func profileCPU(path string) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}

// rawQueue is the first size of a protoactor endpoint writer's queue in
// BenchmarkRemoteRaw, as package remote sets it: the queue grows as it
// needs, and the default of a million slots costs 16 MB a peer.
const rawQueue = 4096

// startRemoting starts an actor system with remoting on a free port of the
// loopback, its logs dropped.
func startRemoting() (*actor.ActorSystem, *pr.Remote) {
	sys := actor.NewActorSystem(actor.WithLoggerFactory(func(*actor.ActorSystem) *slog.Logger {
		return slog.New(slog.DiscardHandler)
	}))
	rem := pr.NewRemote(sys, pr.Configure("127.0.0.1", 0,
		pr.WithEndpointWriterQueueSize(rawQueue),
		pr.WithEndpointManagerQueueSize(rawQueue)))
	rem.Start()
	return sys, rem
}

// runSink serves the counting actor, named "sink", until its standard input
// ends.
func runSink() error {
	sys, rem := startRemoting()
	if _, err := sys.Root.SpawnNamed(actor.PropsFromProducer(func() actor.Actor { return &rawSink{} }), "sink"); err != nil {
		return err
	}
	fmt.Println(sys.Address())
	_, _ = io.Copy(io.Discard, os.Stdin)
	rem.Shutdown(false)
	sys.Shutdown()
	return nil
}

// rawSink counts the Int64Values it is sent. A UInt64Value announces how
// many are coming and starts the count again; once that many have come,
// the sink tells whoever announced them the count.
type rawSink struct {
	want, got uint64
	asker     *actor.PID
}

// Receive implements actor.Actor.
func (s *rawSink) Receive(ctx actor.Context) {
	switch m := ctx.Message().(type) {
	case *wrapperspb.UInt64Value:
		s.want, s.got, s.asker = m.Value, 0, ctx.Sender()
	case *wrapperspb.Int64Value:
		s.got++
	default:
		return
	}
	if s.asker != nil && s.got == s.want {
		ctx.Send(s.asker, wrapperspb.UInt64(s.got))
		s.asker = nil
	}
}

// child is a process started by startChild.
type child struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	line  string     // the line it printed once ready, without its newline
	done  chan error // how it ended, once it has; nil until the line is read
}

// startChild runs the test binary as the child args name, and waits for
// the line it prints once ready. b's cleanup kills it if it still runs.
func startChild(b *testing.B, args ...string) *child {
	b.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), childEnv+"="+strings.Join(args, " "))
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	c := &child{cmd: cmd, stdin: stdin}
	b.Cleanup(c.kill)
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		b.Fatalf("child %v printed no line: %v", args, err)
	}
	c.line = strings.TrimSuffix(line, "\n")
	// Wait closes the pipes, so it runs only once the line is read.
	c.done = make(chan error, 1)
	go func() { c.done <- cmd.Wait() }()
	return c
}

// cpu returns the CPU time the child has spent so far (user and system):
// all of it once it has ended, else as Linux's /proc tells it, in clock
// ticks of 10 ms; 0 where neither tells.
func (c *child) cpu() time.Duration {
	select {
	case err := <-c.done:
		// Received from done, ProcessState is Wait's, complete.
		c.done <- err
		st := c.cmd.ProcessState
		return st.UserTime() + st.SystemTime()
	default:
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(c.cmd.Process.Pid) + "/stat")
	if err != nil {
		return 0
	}
	// The fields after the command's name, which ends with the last ')':
	// utime and stime are the 12th and 13th.
	fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	if len(fields) < 13 {
		return 0
	}
	utime, err1 := strconv.ParseInt(fields[11], 10, 64)
	stime, err2 := strconv.ParseInt(fields[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0
	}
	return time.Duration(utime+stime) * 10 * time.Millisecond
}

// childrenCPU returns the CPU time children have spent so far.
func childrenCPU(children ...*child) time.Duration {
	var total time.Duration
	for _, c := range children {
		total += c.cpu()
	}
	return total
}

// wait waits, at most d, for the child to end by itself, and returns how
// it ended; after d it kills it.
func (c *child) wait(d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case err := <-c.done:
		c.done <- err
		return err
	case <-t.C:
		c.kill()
		return fmt.Errorf("child %d did not end within %v, and was killed", c.cmd.Process.Pid, d)
	}
}

// kill ends the child if it still runs, and waits for it.
func (c *child) kill() {
	_ = c.stdin.Close()
	_ = c.cmd.Process.Kill()
	if c.done == nil {
		_ = c.cmd.Wait()
		return
	}
	err := <-c.done
	c.done <- err
}
