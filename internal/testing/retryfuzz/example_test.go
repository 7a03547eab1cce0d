package retryfuzz_test

import (
	"fmt"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/internal/testing/retryfuzz"
	"github.com/evolvekit/evolve/parallel"
)

// fatal is a retryfuzz.Failer outside a test: Fatalf panics, so it does
// not return.
type fatal struct{}

func (fatal) Helper() {}

func (fatal) Fatalf(format string, args ...any) { panic(fmt.Sprintf(format, args...)) }

// A parallel agent with a limit of 2 and batches of one item, driven by
// one input: three attempts and a first wait of up to 1ms (the
// configuration bytes 0x14, 0x01), then two items, each failing its first
// attempt and retried, then succeeding, and Close. Run checks every
// message against its model, drains the agent and returns what it saw.
func Example() {
	a := retryfuzz.Agent[parallel.State[int, int], parallel.Status]{
		New: func(c retryfuzz.Config) (parallel.State[int, int], retryfuzz.Setup, error) {
			cfg := parallel.Config{Limit: 2, MaxBatch: 1, Queue: c.Queue, Retry: c.Retry}
			s, err := parallel.NewState[int, int](cfg)
			return s, retryfuzz.Setup{Limit: cfg.Limit, MaxBatch: 1}, err
		},
		RetryIf: func(_, _ byte) bool { return false },
		Evolve:  parallel.Evolve[int, int],
		Status:  parallel.State[int, int].Status,
		Base:    func(st parallel.Status) parallel.Status { return st },
		SetLimit: func(a byte) (agent.Msg, int) {
			return agent.Set[parallel.Limit]{Value: parallel.Limit(1 + int(a)%2)}, 1 + int(a)%2
		},
	}
	data := []byte{0, 0x14, 0x01,
		0, 1, 0, 0, // two items
		5, 0, 0x01, 0x81, // 1ms on, the first batch ends, its item failing
		5, 0, 0x01, 0x81, // and 1ms on the second
		14, 0x40, 0, 0x82, // 2ms on: both due, and granted their passes
		5, 0, 0, 0x81, // the retry of the first ends well
		5, 0, 0, 0x81, // and of the second
		15, 0, 0, 0} // Close
	fmt.Printf("%+v\n", retryfuzz.Run(fatal{}, a, data, 400))
	// Output:
	// {Messages:10 Items:2 Retried:2 Failed:0}
}
