package parallel_test

import (
	"errors"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/agent/agenttest"
	"github.com/evolvekit/evolve/internal/pace"
	"github.com/evolvekit/evolve/parallel"
)

// TestBehindAPacerWorkStartsOnlyAsATokenIsSpent drives Evolve behind a
// model of a pacer, as a rate stage in front of it in a chain would be:
// told Paced first, the agent gets items only within the room it opened
// (its demand), and passes only as it reserved them. The rest is
// random: items in chunks, work ending in any order and failing (some
// failures asking for a wait), passes granted a few at a time, the retry
// timer, downstream demand a little at a time, limits raised and lowered,
// Close. After every message it checks what keeps the pace: work starts
// only on a message that spent a token, the items that came (each starts
// at once or waits for a pass, none is left queued) or a pass (no more
// retries start than the passes it brings); the room opened never counts
// on downstream demand that is taken, nor on input slots that are not
// free; a start never goes past the limit.
// At the end, every item came out exactly once.
func TestBehindAPacerWorkStartsOnlyAsATokenIsSpent(t *testing.T) {
	const sequences, messages = 1500, 150
	var items, stranded int
	for seed := range uint64(sequences) {
		p := newPaced(t, seed)
		for range messages {
			p.step()
		}
		p.drain()
		items += p.posted
		stranded += p.stranded
	}
	t.Logf("%d sequences x %d messages, then drain: %d items, %d of them waited for a pass", sequences, messages, items, stranded)
}

// paced is the harness: the pacer before the agent, its work and the
// agent after it, around one State.
type paced struct {
	t    *testing.T
	seed uint64
	r    *rand.Rand
	s    parallel.State[int, int]
	now  time.Time

	room, slots, owed int // what the pacer may send, and the passes it owes
	posted, stranded  int
	running           map[uint64][]int // batches in flight: their items
	timer             time.Time        // the retry timer's instant; zero for none
	emitted           map[uint64]bool
	closed, finished  bool
	cancelled         bool // the first failure cancelled the rest
}

func newPaced(t *testing.T, seed uint64) *paced {
	r := rand.New(rand.NewPCG(seed, 0x9ace))
	cfg := parallel.Config{
		Limit: 1 + r.IntN(6), Queue: 1 + r.IntN(8), Unordered: r.IntN(2) == 0, MaxBatch: []int{0, 1, 3}[r.IntN(3)],
		CancelOnError: r.IntN(8) == 0,
		Retry:         parallel.Retry{Attempts: 1 + r.IntN(3), Backoff: time.Duration(r.IntN(3)) * time.Millisecond, Seed: seed},
	}
	s, err := parallel.NewState[int, int](cfg)
	if err != nil {
		t.Fatal(err)
	}
	p := &paced{t: t, seed: seed, r: r, s: s, now: agenttest.T0, slots: s.Status().Queue,
		running: map[uint64][]int{}, emitted: map[uint64]bool{}}
	p.deliver(agent.Pull{N: 1 + r.IntN(6)})
	p.deliver(pace.In(pace.Paced{}))
	return p
}

func (p *paced) fail(format string, args ...any) {
	p.t.Helper()
	p.t.Fatalf("seed %d at +%v: "+format, append([]any{p.seed, p.now.Sub(agenttest.T0)}, args...)...)
}

// step moves the clock on, firing the retry timer on the way, then
// delivers one random message.
func (p *paced) step() {
	p.now = p.now.Add(time.Duration(p.r.IntN(3)) * time.Millisecond)
	if !p.timer.IsZero() && !p.timer.After(p.now) {
		p.tick()
	}
	switch k := p.r.IntN(100); {
	case k < 30:
		p.send()
	case k < 50:
		p.complete(p.r.IntN(4) == 0)
	case k < 60:
		p.grant(1 + p.r.IntN(3))
	case k < 75:
		p.deliver(agent.Pull{N: 1 + p.r.IntN(3)})
	case k < 85:
		p.deliver(agent.Set[parallel.Limit]{Value: parallel.Limit(1 + p.r.IntN(6))})
	case k == 99 && !p.closed:
		p.closed = true
		p.deliver(agent.Close{})
	}
}

// send lets through up to four items, within the room and the slots.
func (p *paced) send() {
	most := min(p.room, p.slots, 4)
	if most < 1 || p.closed {
		return
	}
	n := 1 + p.r.IntN(most)
	items := make([]int, n)
	for i := range items {
		items[i] = p.posted + i
	}
	p.room -= n
	p.slots -= n
	p.posted += n
	p.deliver(agent.Input[int]{Items: items})
}

// complete ends a batch in flight, failing items at random, half of the
// failures asking for a wait; or none when fail is false.
func (p *paced) complete(fail bool) {
	for id, items := range p.running {
		delete(p.running, id)
		rs := make([]parallel.Result[int], len(items))
		for i, v := range items {
			rs[i] = parallel.Result[int]{Seq: id + uint64(i), Value: v}
			if fail && p.r.IntN(2) == 0 {
				rs[i].Err = errors.New("failed")
				if p.r.IntN(2) == 0 {
					rs[i].Err = agent.RetryAfter(rs[i].Err, 2*time.Millisecond)
				}
			}
		}
		p.deliver(agent.Done[[]parallel.Result[int]]{ID: id, Result: rs})
		return
	}
}

// grant brings up to n of the passes owed.
func (p *paced) grant(n int) {
	if n = min(n, p.owed); n > 0 {
		p.owed -= n
		p.deliver(pace.In(pace.Pass{N: n}))
	}
}

func (p *paced) tick() {
	p.now, p.timer = p.timer, time.Time{}
	p.deliver(agent.Tick{Tag: 1})
}

// deliver evolves the agent with m and checks what it did.
func (p *paced) deliver(m agent.Msg) {
	if p.finished {
		return
	}
	before := p.s.Status()
	var fx []agent.Effect
	p.s, fx = parallel.Evolve(p.s, agent.Stamp(m, p.now))
	started := p.perform(fx)
	after := p.s.Status()
	switch m := m.(type) {
	case agent.Input[int]:
		if stranded := after.Retrying - before.Retrying; started+stranded != len(m.Items) && !p.cancelled {
			p.fail("%d items came: %d started, %d wait for a pass", len(m.Items), started, stranded)
		}
		p.stranded += after.Retrying - before.Retrying
	case agent.Event[pace.Pass]:
		if started > m.Value.N {
			p.fail("%d starts on %d passes", started, m.Value.N)
		}
	default:
		if started > 0 {
			p.fail("work started on %T, which spent no token", m)
		}
	}
	switch {
	case after.Queued != 0 && !p.cancelled: // once cancelled, items fail as they can, unstarted
		p.fail("%d items queued on %T (cancelled %v): behind a pacer each starts as it comes or waits for a pass: %+v before %+v", after.Queued, m, p.cancelled, after, before)
	case after.Room+after.InFlight+after.Held+after.Retrying > int(after.Demand):
		p.fail("room %d, in flight %d, held %d, retrying %d: more than the demand %d", after.Room, after.InFlight, after.Held, after.Retrying, after.Demand)
	case p.room > p.slots:
		p.fail("room for %d items with %d input slots free", p.room, p.slots)
	case started > 0 && after.Batches > after.Limit:
		p.fail("started work with %d batches in flight over a limit of %d", after.Batches, after.Limit)
	}
}

// perform does what fx asks, as the runtime and the pacer would, and
// returns how many items started.
func (p *paced) perform(fx []agent.Effect) int {
	started := 0
	for _, e := range fx {
		switch e := e.(type) {
		case agent.Start[[]int]:
			if _, ok := p.running[e.ID]; ok {
				p.fail("batch %d started twice", e.ID)
			}
			p.running[e.ID] = append([]int(nil), e.Work...)
			started += len(e.Work)
		case agent.Emit[parallel.Result[int]]:
			for _, r := range e.Values {
				if p.emitted[r.Seq] {
					p.fail("item %d emitted twice", r.Seq)
				}
				p.emitted[r.Seq] = true
			}
		case agent.Demand:
			p.slots += e.N
		case agent.Send[pace.Reserve]:
			p.owed += e.Value.N
		case agent.Send[pace.Room]:
			p.room += e.Value.N
		case agent.Timer:
			p.timer = p.now.Add(e.Delay)
		case agent.Disarm:
			p.timer = time.Time{}
		case agent.Finish:
			p.finished = true
		case agent.Cancel:
			p.cancelled = true
		case agent.Unhandled:
			p.fail("unhandled: %+v", fx)
		}
	}
	return started
}

// drain closes the input and runs everything out: passes, work, timers,
// demand.
func (p *paced) drain() {
	if !p.closed {
		p.closed = true
		p.deliver(agent.Close{})
	}
	for n := 0; !p.finished; n++ {
		if n > 10000 {
			p.fail("did not finish: %+v", p.s.Status())
		}
		switch {
		case p.owed > 0:
			p.grant(p.owed)
		case len(p.running) > 0:
			p.complete(false)
		case !p.timer.IsZero():
			p.tick()
		default:
			p.deliver(agent.Pull{N: 4})
		}
	}
	if len(p.emitted) != p.posted {
		p.fail("%d of %d items came out", len(p.emitted), p.posted)
	}
}

// FuzzEvolvePaced drives Evolve behind a model of a pacer as
// TestBehindAPacerWorkStartsOnlyAsATokenIsSpent does, with the sequence
// the seed draws and as many messages as steps says, and checks the same
// promises after every message and at the end.
func FuzzEvolvePaced(f *testing.F) {
	f.Add(uint64(0), uint8(50))
	f.Add(uint64(274), uint8(200))
	f.Fuzz(func(t *testing.T, seed uint64, steps uint8) {
		p := newPaced(t, seed)
		for range steps {
			p.step()
		}
		p.drain()
	})
}
