package tape_test

import (
	"fmt"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/internal/tape"
)

// printed is a tape that prints each step as it is recorded.
type printed struct{}

func (printed) Before(m agent.Msg)      { fmt.Printf("before %T\n", m) }
func (printed) After(fx []agent.Effect) { fmt.Printf("after %d effects\n", len(fx)) }
func (printed) Final(_ time.Time, status any, ok bool) {
	fmt.Println("final", status, ok)
}
func (printed) Close() { fmt.Println("closed") }

func Example() {
	var t tape.Tape = printed{}
	t.Before(agent.Input[int]{Items: []int{1}})
	t.After([]agent.Effect{agent.Emit[int]{Values: []int{1}}, agent.Demand{N: 1}})
	t.Final(time.Time{}, "done", true)
	t.Close()
	// Output:
	// before agent.Input[int]
	// after 2 effects
	// final done true
	// closed
}
