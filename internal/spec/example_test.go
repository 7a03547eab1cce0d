package spec_test

import (
	"fmt"
	"slices"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/internal/spec"
)

// tally keeps the items it took in; evolve updates it in place, so it has
// a Clone.
type tally struct{ seen []string }

func (t *tally) Clone() *tally { return &tally{seen: slices.Clone(t.seen)} }

func tallyEvolve(s *tally, m agent.Msg) (*tally, []agent.Effect) {
	if in, ok := m.(agent.Input[string]); ok {
		s.seen = append(s.seen, in.Items...)
		return s, []agent.Effect{agent.Demand{N: len(in.Items)}}
	}
	return s, []agent.Effect{agent.Unhandled{}}
}

// A driver steps a Spec by hand: each run starts from Initial, here a
// Clone of State, so that two runs share nothing, and Apply hands each
// message to the agent's behaviour.
func Example() {
	sp := spec.Spec[*tally, int, int, string]{Name: "tally", State: &tally{}, Evolve: tallyEvolve, Queue: 8}
	a, b := sp.Initial(), sp.Initial()
	fx := sp.Apply(&a, agent.Input[string]{Items: []string{"x", "y"}}, nil)
	fmt.Printf("effects: %+v\n", fx)
	fmt.Println("run a:", a.seen, "run b:", b.seen, "State:", sp.State.seen)
	// Output:
	// effects: [{N:2}]
	// run a: [x y] run b: [] State: []
}
