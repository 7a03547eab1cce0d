package parallel_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/parallel"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTheDonesOfARoundAtOnceDoWhatTheyDoOneByOne drives two States with
// the same messages, in seeded random rounds: one takes each round's Dones
// one by one through Step, the other all at once through StepDones, as
// the runtime hands them. Both emit every item once, the one in input order
// in the same order; unordered, with all the demand they want, both start
// the same items in each round. In order, the one that takes a round at
// once may start an item a round later: it heeds the bound on the results
// held once the round is in, not between its Dones. Some work fails, and
// the first failure cancels the rest in half of the runs.
func TestTheDonesOfARoundAtOnceDoWhatTheyDoOneByOne(t *testing.T) {
	for seed := range uint64(40) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 7))
			cfg := parallel.Config{Limit: 1 + r.IntN(12), Queue: 64, MaxBatch: 1, Unordered: r.IntN(2) == 0, CancelOnError: seed%2 == 1}
			one, err := parallel.NewState[int, int](cfg)
			require.NoError(t, err)
			all := one.Owned()
			one = one.Owned()
			var a, b trace
			at := time.Unix(0, 0)
			both := func(m agent.Msg) {
				a.add(one.Step(m, nil))
				b.add(all.Step(m, nil))
			}
			both(agent.Pull{At: at, N: agent.Unbounded})
			next, n := 0, 0
			for round := 0; round < 200 && (round < 60 || len(a.flying)+len(b.flying) > 0); round++ {
				at = at.Add(time.Millisecond)
				if round < 60 {
					k := r.IntN(6)
					items := make([]int, k)
					for i := range items {
						items[i] = next
						next++
					}
					n += k
					both(agent.Input[int]{At: at, Items: items})
				}
				if cfg.Unordered {
					require.ElementsMatch(t, a.flying, b.flying, "round %d: the same work in flight", round)
				}
				var da, db []agent.Done[[]parallel.Result[int]]
				for _, id := range a.flying {
					if r.IntN(3) == 0 && round < 60 {
						continue
					}
					var err error
					if r.IntN(10) == 0 {
						err = errors.New("broke")
					}
					d := agent.Done[[]parallel.Result[int]]{At: at, ID: id, Result: []parallel.Result[int]{{Seq: id, Value: int(id) * 10, Err: err}}}
					da = append(da, d)
					if slices.Contains(b.flying, id) {
						db = append(db, d)
					}
				}
				for _, id := range b.flying {
					if !slices.Contains(a.flying, id) {
						db = append(db, agent.Done[[]parallel.Result[int]]{At: at, ID: id, Result: []parallel.Result[int]{{Seq: id, Value: int(id) * 10}}})
					}
				}
				r.Shuffle(len(da), func(i, j int) { da[i], da[j] = da[j], da[i] })
				for _, d := range da {
					a.add(one.Step(d, nil))
				}
				b.add(all.StepDones(db, nil))
				a.finish(da)
				b.finish(db)
			}
			both(agent.Close{At: at})
			require.True(t, a.finished && b.finished, "both finished")
			require.Len(t, a.emitted, n, "every item emitted once")
			require.Len(t, b.emitted, n, "every item emitted once")
			if cfg.Unordered {
				assert.ElementsMatch(t, seqs(a.emitted), seqs(b.emitted))
				assert.Equal(t, a.started, b.started, "the same items started, in the same order")
			} else {
				assert.Equal(t, seqs(a.emitted), seqs(b.emitted), "in input order")
			}
			assert.Equal(t, a.demand, b.demand, "the same input slots given back")
			sa, sb := one.Status(), all.Status()
			assert.Equal(t, sa.Load.Done, sb.Load.Done)
			assert.Equal(t, sa.Load.Failed, sb.Load.Failed)
		})
	}
}

// trace is what a State's effects said, gathered.
type trace struct {
	emitted  []parallel.Result[int]
	started  []uint64
	flying   []uint64
	demand   int
	finished bool
}

// add gathers fx.
func (t *trace) add(fx []agent.Effect) {
	for _, e := range fx {
		switch e := e.(type) {
		case agent.Emit[parallel.Result[int]]:
			t.emitted = append(t.emitted, e.Values...)
		case agent.Start[[]int]:
			t.started = append(t.started, e.ID)
			t.flying = append(t.flying, e.ID)
		case agent.Demand:
			t.demand += e.N
		case agent.Finish:
			t.finished = true
		}
	}
}

// finish takes the work ds reported out of flight.
func (t *trace) finish(ds []agent.Done[[]parallel.Result[int]]) {
	for _, d := range ds {
		if i := slices.Index(t.flying, d.ID); i >= 0 {
			t.flying = slices.Delete(t.flying, i, i+1)
		}
	}
}
