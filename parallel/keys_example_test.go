package parallel_test

import (
	"fmt"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/parallel"
)

// A key per item shares the agent's places among clients: here one place,
// a client "big" with six items queued before a client "small" posts two,
// and every item's work takes a millisecond. Evolve shows the order they
// start in: small's items do not wait behind all of big's.
func ExampleConfig_key() {
	type email struct{ client, to string }
	s, _ := parallel.NewState[email, string](parallel.Config{
		Limit: 1, MaxBatch: 1, Unordered: true,
		Key: func(e email) string { return e.client },
	})
	at := time.Unix(0, 0)
	var order []string
	var started []uint64 // the work in flight: one at a time here
	step := func(m agent.Msg) {
		var fx []agent.Effect
		s, fx = parallel.Evolve(s, m)
		for _, e := range fx {
			if st, ok := e.(agent.Start[[]email]); ok {
				order = append(order, st.Work[0].client+":"+st.Work[0].to)
				started = append(started, st.ID)
			}
		}
	}
	step(agent.Pull{N: agent.Unbounded, At: at})
	var big []email
	for i := range 6 {
		big = append(big, email{"big", fmt.Sprint(i)})
	}
	step(agent.Input[email]{Items: big, At: at})
	step(agent.Input[email]{Items: []email{{"small", "0"}, {"small", "1"}}, At: at})
	for len(started) > 0 {
		id := started[0]
		started = started[1:]
		at = at.Add(time.Millisecond)
		step(agent.Done[[]parallel.Result[string]]{ID: id, Result: []parallel.Result[string]{{Seq: id}}, At: at, Took: time.Millisecond})
	}
	fmt.Println(order)
	// Output: [big:0 big:1 small:0 big:2 small:1 big:3 big:4 big:5]
}
