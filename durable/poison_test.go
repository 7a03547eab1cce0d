package durable_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/compose"
	"github.com/evolvekit/evolve/durable"
	"github.com/evolvekit/evolve/parallel"
	"github.com/nats-io/nats.go"
)

// The poison test's queue: the item that kills its process, and the
// attempts it is allowed.
const (
	poisonItems    = 50
	poisonValue    = 13
	poisonAttempts = 3
)

func init() {
	children["poison"] = func(args []string) error {
		if len(args) != 2 {
			return fmt.Errorf("poison takes DIR SINK, got %q", args)
		}
		return runPoison(args[0], args[1])
	}
}

// runPoison opens the queue in dir and runs a chain on it whose work
// kills its own process, with SIGKILL, when it meets the poison item. The
// other items' keys go to the file "reached" in sink, a line each.
func runPoison(dir, sink string) error {
	ctx := context.Background()
	q, err := durable.Open[int](durable.Embedded{Dir: dir}, durable.Config{MaxAttempts: poisonAttempts})
	if err != nil {
		return err
	}
	defer q.Close()
	rt := agent.NewRuntime()
	defer rt.Shutdown(ctx)
	reached, err := os.OpenFile(filepath.Join(sink, "reached"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer reached.Close()
	work, err := parallel.Stage(parallel.Config{Limit: 4}, durable.Map(func(_ context.Context, v int) (int, error) {
		if v == poisonValue {
			_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
			select {} // the signal ends the process
		}
		return v, nil
	}))
	if err != nil {
		return err
	}
	chain, err := compose.Start(rt, work, durable.Sink(q, func(it durable.Item[int]) error {
		_, err := fmt.Fprintln(reached, it.Key)
		return err
	}), compose.WithDeadLetters(q.DeadLetters))
	if err != nil {
		return err
	}
	fmt.Println("bound 0")
	return durable.Consume(ctx, q, chain, durable.WithUntilEmpty())
}

// TestAnItemThatKillsItsProcessGoesToTheDeadLetters adds 50 items to an
// embedded queue, one of which kills with SIGKILL the process that works
// on it, and runs the chain in a child process again each time it dies.
// The first death makes suspects of every item the process held; the
// next runs work on each suspect alone, so that the deaths that follow
// are charged to the poison item only, though the queue's consumer is
// made anew at every open. After MaxAttempts such deaths the next run
// sends it to the dead letters, saying why, and ends with every other
// item in the sink: none of them spent an attempt.
func TestAnItemThatKillsItsProcessGoesToTheDeadLetters(t *testing.T) {
	dir, sink := t.TempDir(), t.TempDir()
	ctx := context.Background()
	q, err := durable.Open[int](durable.Embedded{Dir: dir}, durable.Config{})
	if err != nil {
		t.Fatal(err)
	}
	if err := q.AddMany(ctx, keyed(poisonItems)); err != nil {
		t.Fatal(err)
	}
	if err := q.Close(); err != nil {
		t.Fatal(err)
	}

	deaths := 0
	for run := 0; ; run++ {
		if run > 2*poisonAttempts+2 {
			t.Fatalf("%d runs and the queue is not done; %d of them died", run, deaths)
		}
		c := startChild(t, "poison", dir, sink)
		if _, err := c.bound(); err != nil {
			t.Fatal(err)
		}
		err := c.wait(time.Minute)
		if err == nil {
			break
		}
		if !strings.Contains(err.Error(), "killed") {
			t.Fatalf("run %d: %v; want a death by SIGKILL or a clean end", run, err)
		}
		deaths++
	}
	// The first death makes suspects of what the process held; each
	// after it is the poison item's, in work alone.
	if deaths != poisonAttempts+1 {
		t.Errorf("the poison item killed %d processes; want %d: one among the others, then its attempts alone", deaths, poisonAttempts+1)
	}

	data, err := os.ReadFile(filepath.Join(sink, "reached"))
	if err != nil {
		t.Fatal(err)
	}
	reached := map[string]bool{}
	for _, k := range strings.Fields(string(data)) {
		reached[k] = true
	}
	for i := range poisonItems {
		k := "k" + strconv.Itoa(i)
		if i == poisonValue && reached[k] {
			t.Errorf("the poison item %s reached the sink", k)
		} else if i != poisonValue && !reached[k] {
			t.Errorf("item %s never reached the sink", k)
		}
	}

	// The dead letters hold the poison item, and say why.
	q, err = durable.Open[int](durable.Embedded{Dir: dir, Listen: "127.0.0.1:0"}, durable.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	if n, err := q.Len(ctx); err != nil || n != 0 {
		t.Errorf("Len = %d, %v; want 0", n, err)
	}
	msg := deadLetter(t, q.URL(), q.Name())
	if key := msg.Header.Get(nats.MsgIdHdr); key != "k"+strconv.Itoa(poisonValue) {
		t.Errorf("the dead letter's key is %q; want the poison item's", key)
	}
	why := msg.Header.Get("Evolve-Error")
	want := fmt.Sprintf("(%d of them killed the process that worked on it alone)", poisonAttempts)
	if !strings.Contains(why, want) {
		t.Errorf("the dead letter says %q; want it to say %q", why, want)
	}
}

// deadLetter returns the one dead letter of the queue name at url.
func deadLetter(t *testing.T, url, name string) *nats.Msg {
	t.Helper()
	js := jetStream(t, url)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s, err := js.Stream(ctx, name+"_dead")
	if err != nil {
		t.Fatal(err)
	}
	info, err := s.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.State.Msgs != 1 {
		t.Fatalf("the dead letters hold %d items; want 1", info.State.Msgs)
	}
	raw, err := s.GetMsg(ctx, info.State.FirstSeq)
	if err != nil {
		t.Fatal(err)
	}
	return &nats.Msg{Subject: raw.Subject, Header: raw.Header, Data: raw.Data}
}
