package book

import (
	"strings"
	"testing"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/agent/agenttest"
	"github.com/evolvekit/evolve/internal/fair"
	"github.com/evolvekit/evolve/remote/internal/fairline"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// keyOf keys the items "key:n" by key.
func keyOf(item string) string { return item[:strings.IndexByte(item, ':')] }

// keyed are the settings of a stage whose items are keyed, one slot a
// worker, no prefetch.
func keyed(weights map[string]int) options[string] {
	return options[string]{Lease: lease, Unordered: true, MaxPrefetch: NoPrefetch, Key: keyOf, Weights: weights}
}

// sent returns the Dispatches fx asks for.
func sent(fx []agent.Effect) []Dispatch[string] {
	var out []Dispatch[string]
	for _, e := range agenttest.Of[sendFx](fx) {
		out = append(out, e.Value)
	}
	return out
}

// dispatched returns the values of the tasks fx hands out, in order.
func dispatched(fx []agent.Effect) []string {
	var out []string
	for _, d := range sent(fx) {
		for _, task := range d.Tasks {
			out = append(out, task.Value)
		}
	}
	return out
}

func TestAKeyWithItemsWaitingStartsBeforeAnotherKeysBacklog(t *testing.T) {
	tr := play(t, keyed(nil),
		pullAll, join(1, 1),
		items("a:0", "a:1", "a:2", "b:0"),
		ask(1, 1),
		after(10*time.Millisecond, ok(1, 0, 1, 0)), ask(1, 1),
		after(20*time.Millisecond, ok(1, 3, 1, 0)), ask(1, 1),
	)
	assert.Empty(t, dispatched(tr[2].Effects), "no place free: nothing let in")
	assert.Equal(t, []string{"a:0"}, dispatched(tr[3].Effects), "a's turn first")
	assert.Equal(t, []string{"b:0"}, dispatched(tr[5].Effects), "a spent its quantum: b's turn, ahead of a's backlog")
	assert.Equal(t, []string{"a:1"}, dispatched(tr[7].Effects), "then a's, in order")
	st := tr[7].State.Snapshot()
	assert.Equal(t, map[string]fairline.Count{"a": {Queued: 1, Started: 2, Weight: 1}}, st.Keys, "b ended and is forgotten")
	assert.Equal(t, 1, st.Queued)
	assert.Equal(t, map[string]int{"": 1}, st.Tags)
}

func TestAKeyAloneTakesEveryPlace(t *testing.T) {
	tr := play(t, keyed(nil),
		pullAll, join(1, 3), join(2, 2),
		items("a:0", "a:1", "a:2", "a:3", "a:4", "a:5"),
		ask(1, 3), ask(2, 2),
	)
	assert.Equal(t, []string{"a:0", "a:1", "a:2"}, dispatched(tr[4].Effects))
	assert.Equal(t, []string{"a:3", "a:4"}, dispatched(tr[5].Effects), "every free place, in input order")
	assert.Equal(t, map[string]fairline.Count{"a": {Queued: 1, Started: 5, Weight: 1}}, tr[5].State.Snapshot().Keys)
}

func TestHeavierKeysStartMoreInProportion(t *testing.T) {
	s := newMaster(t, keyed(map[string]int{"a": 3}))
	var in []string
	for n := range 40 {
		in = append(in, "a:"+string(rune('0'+n%10)), "b:"+string(rune('0'+n%10)))
	}
	now := agenttest.T0
	deliver := func(m agent.Msg) []agent.Effect {
		var fx []agent.Effect
		s, fx = evolve(s, agent.Stamp(m, now))
		return fx
	}
	deliver(agent.Pull{N: agent.Unbounded})
	deliver(agent.Event[Joined]{Value: Joined{Worker: 1, Slots: 1}})
	deliver(agent.Input[string]{Items: in})
	started := map[string]int{}
	fx := deliver(agent.Event[Asked]{Value: Asked{Worker: 1, N: 1}})
	for range 40 {
		ds := sent(fx)
		require.Len(t, ds, 1)
		task := ds[0].Tasks[0]
		started[keyOf(task.Value)]++
		now = now.Add(time.Millisecond) // every item takes a quantum
		fx = deliver(agent.Event[Outcomes[int]]{Value: Outcomes[int]{Worker: 1, Asked: 1,
			Outcomes: []Outcome[int]{{Item: task.Item, Attempt: task.Attempt}}}})
	}
	assert.Equal(t, map[string]int{"a": 30, "b": 10}, started, "3 to 1")
}

func TestASlowKeyIsChargedItsTime(t *testing.T) {
	s := newMaster(t, keyed(nil))
	now := agenttest.T0
	deliver := func(m agent.Msg) []agent.Effect {
		var fx []agent.Effect
		s, fx = evolve(s, agent.Stamp(m, now))
		return fx
	}
	var in []string
	for n := range 30 {
		in = append(in, "slow:"+string(rune('0'+n%10)))
	}
	for n := range 30 {
		in = append(in, "quick:"+string(rune('0'+n%10)))
	}
	deliver(agent.Pull{N: agent.Unbounded})
	deliver(agent.Event[Joined]{Value: Joined{Worker: 1, Slots: 1}})
	deliver(agent.Input[string]{Items: in})
	took := map[string]time.Duration{}
	// Q + L/1 + L/1, and what the first slow item's charge missed: it
	// was charged a quantum, and took 4.
	bound := time.Millisecond + 2*4*time.Millisecond + 3*time.Millisecond
	fx := deliver(agent.Event[Asked]{Value: Asked{Worker: 1, N: 1}})
	for range 40 {
		task := sent(fx)[0].Tasks[0]
		d := time.Millisecond
		if keyOf(task.Value) == "slow" {
			d = 4 * time.Millisecond
		}
		took[keyOf(task.Value)] += d
		require.LessOrEqual(t, (took["slow"] - took["quick"]).Abs(), bound, "at %v", took)
		now = now.Add(d)
		fx = deliver(agent.Event[Outcomes[int]]{Value: Outcomes[int]{Worker: 1, Asked: 1,
			Outcomes: []Outcome[int]{{Item: task.Item, Attempt: task.Attempt}}}})
	}
	t.Logf("work started: slow %v, quick %v", took["slow"], took["quick"])
	assert.Greater(t, took["quick"], 20*time.Millisecond, "first come, first served would give quick 10 ms: 30 slow items came first")
}

func TestAnItemTakenBackBypassesTheFairQueue(t *testing.T) {
	tr := play(t, keyed(nil),
		pullAll, join(1, 1), items("a:0", "b:0", "c:0"), ask(1, 1),
		lose(1),
		join(2, 1), ask(2, 1),
	)
	assert.Equal(t, []string{"a:0"}, dispatched(tr[3].Effects))
	assert.Equal(t, []Task[string]{taskOf(0, 2, "a:0")}, sent(tr[6].Effects)[0].Tasks,
		"chosen once: b's turn does not come before it")
}

func TestItemsInTheFairQueueWaitForATagAndFailWithIt(t *testing.T) {
	wait := 5 * time.Second
	o := keyed(nil)
	o.TagWait, o.Tag = wait, gpuTag
	tr := play(t, o,
		pullAll, join(1, 1), ask(1, 1),
		items("gpu:a:0", "gpu:b:0", "a:1"),
		after(wait, tick(waitTag)),
	)
	st := tr[3].State.Snapshot()
	assert.Equal(t, map[string]int{"gpu": 2}, st.Tags, "a:1 went; the gpu items wait, in their fair queue")
	assert.Equal(t, 2, st.Waiting)
	assert.Equal(t, agent.Timer{Tag: waitTag, Delay: wait}, tr[3].Effects[len(tr[3].Effects)-1])
	rs := agenttest.Emitted[res](tr[4].Effects)
	require.Len(t, rs, 2, "none lost in the fair queue")
	for _, r := range rs {
		assert.ErrorIs(t, r.Err, ErrNoWorker)
	}
	assert.Equal(t, map[string]fairline.Count{"a": {Started: 1, Weight: 1}}, tr[4].State.Snapshot().Keys, "the gpu keys ended")
}

// took returns worker id's success at item's attempt, whose work took d.
func took(id WorkerID, item uint64, attempt int, d time.Duration) agenttest.Step {
	return event(Outcomes[int]{Worker: id, Asked: 1, Outcomes: []Outcome[int]{{Item: item, Attempt: attempt, Took: d}}})
}

func TestAnItemIsChargedTheWorkItsWorkerMeasured(t *testing.T) {
	steps := func(d time.Duration) []agenttest.Step {
		return []agenttest.Step{
			pullAll, join(1, 1), items("a:0", "a:1", "b:0", "b:1"), ask(1, 1),
			after(50*time.Millisecond, took(1, 0, 1, d)),
			after(51*time.Millisecond, took(1, 2, 1, time.Millisecond)),
		}
	}
	tr := play(t, keyed(nil), steps(time.Millisecond)...)
	assert.Equal(t, []string{"a:0"}, dispatched(tr[3].Effects))
	assert.Equal(t, []string{"b:0"}, dispatched(tr[4].Effects))
	assert.Equal(t, []string{"a:1"}, dispatched(tr[5].Effects), "a's work took a millisecond, though its outcome came after 50")
	tr = play(t, keyed(nil), steps(0)...)
	assert.Equal(t, []string{"b:1"}, dispatched(tr[5].Effects), "unsaid: charged the 50 ms from its lease to its outcome")
}

func TestACloneOfAKeyedBookSharesNoFairQueue(t *testing.T) {
	b := newMaster(t, keyed(map[string]int{"a": 2}))
	for _, m := range []agent.Msg{
		agent.Pull{N: agent.Unbounded},
		agent.Event[Joined]{Value: Joined{Worker: 1, Slots: 2}},
		agent.Input[string]{Items: []string{"a:0", "a:1", "b:0", "b:1"}},
	} {
		b, _ = evolve(b, agent.Stamp(m, agenttest.T0))
	}
	before := bookkeeping(b)
	c := b.Clone()
	c, fx := evolve(c, agent.Stamp(agent.Event[Asked]{Value: Asked{Worker: 1, N: 2}}, agenttest.T0))
	assert.Len(t, dispatched(fx), 2)
	assert.Equal(t, map[string]fairline.Count{"a": {Started: 2, Weight: 2}, "b": {Queued: 2, Weight: 1}}, c.Snapshot().Keys, "a weighs 2: two turns' worth")
	assert.Equal(t, before, bookkeeping(b), "the original is as it was")
	assert.Equal(t, map[string]fairline.Count{"a": {Queued: 2, Weight: 2}, "b": {Queued: 2, Weight: 1}}, b.Snapshot().Keys)
	_, gx := evolve(b, agent.Stamp(agent.Event[Asked]{Value: Asked{Worker: 1, N: 2}}, agenttest.T0))
	assert.Equal(t, fx, gx, "and does what the clone did")
}

// With keys, the Demand that gives input slots back comes after a Freed
// that names the keys of the items whose slots they were.
func TestAKeyedBookNamesTheKeysOfTheSlotsItGivesBack(t *testing.T) {
	tr := play(t, keyed(nil),
		pullAll, join(1, 2),
		items("a:0", "a:1", "b:0"),
		ask(1, 2),
	)
	fx := tr[3].Effects
	freed := agenttest.Of[agent.Send[fair.Freed]](fx)
	require.Len(t, freed, 1)
	demands := agenttest.Of[agent.Demand](fx)
	require.Len(t, demands, 1)
	n := 0
	for _, r := range freed[0].Value.Runs {
		n += r.N
	}
	assert.Equal(t, demands[0].N, n, "a key for each slot given back")
	assert.Equal(t, []string{"a:0", "b:0"}, dispatched(fx), "a's turn, then b's")
	assert.Equal(t, []fair.Run{{Key: "a", N: 1}, {Key: "b", N: 1}}, freed[0].Value.Runs)
	for i, e := range fx {
		if _, ok := e.(agent.Demand); ok {
			_, before := fx[i-1].(agent.Send[fair.Freed])
			assert.True(t, before, "the Freed just before the Demand: %v", fx)
		}
	}
}
