package book

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/agent/agenttest"
	"github.com/evolvekit/evolve/internal/fuzzin"
)

// FuzzEvolve drives the master's evolve with message sequences decoded from
// the fuzzer's bytes, through the harness and model of
// TestRandomSequencesKeepEveryPromise, so that every message is checked as
// there: the master's Snapshot, effects, timers and input slots against the
// model, each dispatch to a registered worker with a slot not hung, within
// the slots and prefetch it asked for, MaxBatch and the window, of the oldest items it
// may take; each result emitted once, within demand, in input order unless
// unordered, with its first success or the error the package defines;
// nothing left undone; never Unhandled for a message it takes; a Clone
// answering the same. After Close and the drain (a worker with every tag
// joins and answers everything), every accepted item was emitted and Finish
// came once.
//
// The first six bytes are the configuration (queue bound, window, max
// batch, max attempts, order, tags, lease, tag wait, first demand); the
// rest are records of four bytes, a kind, two arguments and a step of the
// clock (see fzStep). The workers are honest, as the harness's are: they
// ask only for the slots they have free and answer only the tasks they
// were given, the dead and those that left too (late results), and a
// result may come again (a duplicate).
func FuzzEvolve(f *testing.F) {
	f.Add([]byte{0, 0, 0, 0, 0, 0})
	// In input order, tags, window 4, batches of 2, two attempts, leases
	// of 4s: a worker with every tag takes items, fails one, which is
	// retried, answers the rest, and a result comes twice; a worker with
	// tag a joins, takes work, and is lost; a lease expires.
	f.Add([]byte{3, 4, 1, 1, 0x0c, 0x05,
		0, 2, 0x00, 0, 4, 2, 3, 0, 5, 0, 2, 0, 7, 0, 0x04, 0x21, 5, 0, 0, 0,
		7, 0, 0x02, 0x21, 10, 0, 0, 0, 0, 1, 0x0e, 0, 4, 0, 1, 0, 5, 1, 0, 0,
		5, 0, 2, 0, 7, 1, 0, 0xe2, 0, 2, 0x3a, 0, 13, 0, 0, 0xea, 11, 1, 0, 0,
		14, 0, 0, 0, 14, 1, 3, 0, 7, 0, 0x02, 0, 7, 0, 0x02, 0, 15, 0, 0, 0xe4})
	// Unordered, a demand of 2, one attempt: a worker leaves handing back
	// half its items, answers the others late; items tagged b wait for a
	// worker that never comes, and give up.
	f.Add([]byte{7, 0, 2, 0, 0x05, 0x22,
		0, 2, 0xff, 0, 0, 2, 0x00, 0, 4, 3, 1, 0, 5, 0, 3, 0, 12, 0, 0x05, 0xc1,
		7, 0, 0x02, 0, 3, 3, 0, 0, 4, 1, 0, 0, 5, 0, 1, 0, 7, 0, 0x01, 0xe1,
		13, 1, 0, 0xef, 13, 2, 0, 0, 14, 1, 7, 0, 15, 0, 0, 0})
	// No tags, window 1, three attempts, leases of 1s: the worker is slow,
	// its lease expires twice and its slot hangs, a second worker takes
	// over.
	f.Add([]byte{1, 1, 0, 2, 0x02, 0x0f,
		0, 1, 0, 0, 4, 1, 0, 0, 5, 0, 1, 0, 13, 0, 0, 0xe3, 4, 0, 0, 0, 5, 1, 0, 0,
		5, 0, 0, 0xe3, 7, 0, 0x01, 0, 7, 1, 0x01, 0, 6, 1, 0, 0, 7, 0, 0x01, 0,
		10, 1, 0, 0, 15, 0, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		in := fuzzin.New(data)
		m := fzNewMsim(t, in)
		for n := 0; in.More() && n < fzMaxSteps && m.finishes == 0; n++ {
			fzStep(m, in)
		}
		m.drain()
		m.checkEnd()
	})
}

// fzMaxSteps bounds the messages decoded from one input, to keep each run
// of the fuzz function short.
const fzMaxSteps = 300

// fzDelay decodes a step of the clock from one byte: its low five bits
// count units of 1ms to 500ms, which its high three bits pick, or no step
// at all for half the bytes, so that leases and tag waits expire now and
// then rather than at every other message.
func fzDelay(b byte) time.Duration {
	units := [8]time.Duration{0, 0, 0, 0, time.Millisecond, 10 * time.Millisecond,
		100 * time.Millisecond, 500 * time.Millisecond}
	return time.Duration(b&31) * units[b>>5]
}

// fzNewMsim builds the harness for the configuration the input starts
// with, as newMsim does for a seed. The harness's own draws (query IDs,
// and what happens while draining) come from a generator seeded by the
// input's first bytes, so that an input replays exactly.
//
//	Queue 1 + b0%8; Window b1%11 (0: the default); MaxBatch 1 + b2%3;
//	MaxPrefetch none, the default, 1 or 3 by (b2>>4)%4;
//	MaxAttempts 1 + b3%3; b4&1 unordered, b4&2 no tags; Lease 1 +
//	(b4>>2)%16 seconds; TagWait 1 + b5%16 seconds; b5>>4 the first demand (0:
//	unbounded).
func fzNewMsim(t *testing.T, in *fuzzin.Bytes) *msim {
	seed := in.Seed()
	b0, b1, b2, b3, b4, b5 := in.Byte(), in.Byte(), in.Byte(), in.Byte(), in.Byte(), in.Byte()
	cfg := options[int]{
		Queue:       1 + int(b0)%8,
		Window:      int(b1) % 11,
		MaxBatch:    1 + int(b2)%3,
		MaxPrefetch: []int{NoPrefetch, 0, 1, 3}[(b2>>4)%4],
		MaxAttempts: 1 + int(b3)%3,
		Unordered:   b4&1 != 0,
		Lease:       time.Duration(1+int(b4>>2)%16) * time.Second,
		TagWait:     time.Duration(1+int(b5%16)) * time.Second,
	}
	if b4&2 == 0 {
		cfg.Tag = func(v int) string { return tagNames[v%4] }
	}
	s, err := newBook[int, int](cfg)
	if err != nil {
		t.Fatalf("config %+v: %v", cfg, err)
	}
	s.silence = 0 // the model knows no heartbeat: heartbeat_test.go tests the silence rule
	m := &msim{
		t: t, seed: seed, r: rand.New(rand.NewPCG(seed, 0xf022)), s: s, now: agenttest.T0,
		queue: cfg.Queue, window: cfg.Window, maxBatch: cfg.MaxBatch, maxAttempts: cfg.MaxAttempts,
		prefetch: grantOf(cfg.MaxPrefetch), unordered: cfg.Unordered, lease: cfg.Lease, tagWait: cfg.TagWait, tagged: cfg.Tag != nil,
		credits: cfg.Queue, stuck: map[string]time.Time{}, barred: map[string]bool{},
	}
	if m.window == 0 {
		m.window = DefaultWindow
	}
	if b5>>4 != 0 {
		m.deliver(agent.Pull{N: int(b5 >> 4)})
	} else {
		m.deliver(agent.Pull{N: agent.Unbounded})
	}
	return m
}

// fzStep decodes one record: the clock moves on by its fourth byte (see
// fzDelay), delivering the Ticks of the timers due by then as the runtime
// would, then comes what the kind says:
//
//	kind%16 0-2: 1 + a%3 items, within the input slots the feeder holds,
//	             the tags of which b picks
//	          3: a grant of 1 + a%4 demand
//	          4: a worker joins with 1 + a%4 slots and the tags b%4 picks
//	        5-6: the registered worker a picks asks for some of the slots
//	             it has free, b saying how many
//	        7-9: a worker holding tasks (a picks it, registered or not)
//	             answers 1 + b%3 of them, b>>2 failing some
//	         10: a result sent before comes again
//	         11: the registered worker a picks dies
//	         12: the registered worker a picks leaves, handing back the
//	             tasks b's bits pick
//	         13: a stale Tick, of a timer the master armed or not
//	         14: a query, or (a odd) a message to ignore or not taken
//	         15: Close, once, if a%8 is 0 (else nothing but the clock)
func fzStep(m *msim, in *fuzzin.Bytes) {
	kind, a, b, dt := in.Byte(), in.Byte(), in.Byte(), in.Byte()
	m.advance(fzDelay(dt))
	switch kind % 16 {
	case 0, 1, 2:
		fzPost(m, 1+int(a)%3, b)
	case 3:
		m.deliver(agent.Pull{N: 1 + int(a)%4})
	case 4:
		m.join([][]string{nil, {"a"}, {"b"}, {"a", "b"}}[b%4], 1+int(a)%4)
	case 5, 6:
		if w := fzRegistered(m, a); w != nil {
			fzAsk(m, w, b)
		}
	case 7, 8, 9:
		fzAnswer(m, a, b)
	case 10:
		if len(m.history) > 0 {
			h := m.history[(int(a)|int(b)<<8)%len(m.history)]
			m.deliver(agent.Event[Outcomes[int]]{Value: Outcomes[int]{Worker: h.worker, Outcomes: []Outcome[int]{h.o}}})
		}
	case 11:
		m.lose(fzRegistered(m, a))
	case 12:
		fzLeave(m, fzRegistered(m, a), b)
	case 13:
		if tag := uint64(1 + a%3); tag < 3 {
			m.deliver(agent.Tick{Tag: tag})
		} else {
			m.ignored(agent.Tick{Tag: 43})
		}
	case 14:
		if a&1 == 1 {
			fzNoise(m, b)
			return
		}
		m.query()
	case 15:
		if !m.closed && a%8 == 0 {
			m.deliver(agent.Close{})
		}
	}
}

// fzPost posts n items as post does, no more than the feeder holds slots
// for and none after Close; the value of item i is 4i + a tag's index
// (see tagNames), the two bits of pick for it choosing.
func fzPost(m *msim, n int, pick byte) {
	n = min(n, m.credits)
	if m.closed || n == 0 {
		return
	}
	vs := make([]int, n)
	for i := range vs {
		vs[i] = len(m.items)*4 + int(pick>>(2*i))%4
		tag := ""
		if m.tagged {
			tag = tagNames[vs[i]%4]
		}
		m.items = append(m.items, &simItem{seq: uint64(len(m.items)), tag: tag, slot: true, workErrs: map[int]error{}})
	}
	m.credits -= n
	m.deliver(agent.Input[int]{Items: vs})
}

// fzRegistered returns the registered worker pick chooses, or nil if none
// is.
func fzRegistered(m *msim, pick byte) *simWorker {
	ws := m.alive()
	if len(ws) == 0 {
		return nil
	}
	return ws[int(pick)%len(ws)]
}

// fzAsk has w ask for 1 + pick%spare of the slots it really has free, as
// ask does.
func fzAsk(m *msim, w *simWorker, pick byte) {
	spare := m.spare(w)
	if spare <= 0 {
		return
	}
	m.deliver(agent.Event[Asked]{Value: Asked{Worker: w.id, N: 1 + int(pick)%spare}})
}

// fzAnswer has a worker holding tasks, the one pick's low bits choose, send
// the results of 1 + how%3 of them, as answer does: the task pick>>3 says
// and those after it, result k a failure if bit k of how>>2 is set.
func fzAnswer(m *msim, pick, how byte) {
	var ws []*simWorker
	for _, w := range m.workers {
		if len(w.holding) > 0 {
			ws = append(ws, w)
		}
	}
	if len(ws) == 0 {
		return
	}
	w := ws[int(pick&7)%len(ws)]
	var outs []Outcome[int]
	for k := range min(1+int(how)%3, len(w.holding)) {
		i := int(pick>>3) % len(w.holding)
		h := w.holding[i]
		w.holding = slices.Delete(w.holding, i, i+1)
		o := Outcome[int]{Item: h.seq, Attempt: h.attempt, Value: int(h.seq)*100 + h.attempt}
		if how>>(2+k)&1 == 1 {
			o = Outcome[int]{Item: h.seq, Attempt: h.attempt, Err: fmt.Errorf("item %d attempt %d on worker %d failed", h.seq, h.attempt, w.id)}
			m.items[h.seq].workErrs[h.attempt] = o.Err
		}
		outs = append(outs, o)
		m.history = append(m.history, sentOutcome{worker: w.id, o: o})
	}
	m.deliver(agent.Event[Outcomes[int]]{Value: Outcomes[int]{Worker: w.id, Outcomes: outs}})
}

// fzLeave has w leave, as leave does, handing back the tasks it holds
// whose index has its bit set in mask (bits wrap around); it may still
// answer the others.
func fzLeave(m *msim, w *simWorker, mask byte) {
	if w == nil {
		return
	}
	var handed []uint64
	var kept []holdup
	for i, h := range w.holding {
		if mask>>(i%8)&1 == 1 || slices.Contains(handed, h.seq) {
			handed = append(handed, h.seq)
			continue
		}
		kept = append(kept, h)
	}
	w.holding = slices.DeleteFunc(kept, func(h holdup) bool { return slices.Contains(handed, h.seq) })
	m.deliver(agent.Event[Left]{Value: Left{Worker: w.id, Handed: handed}})
}

// fzNoise sends what noise sends, the one pick chooses: a message the
// master must report unhandled, or one it must ignore (a Pull of nothing,
// events of unknown workers or of workers gone, a second joined).
func fzNoise(m *msim, pick byte) {
	wrong := []agent.Msg{
		agent.Set[int]{Value: 4},
		agent.Done[int]{ID: 0},
		agent.Input[string]{Items: []string{"x"}},
		agent.Event[Outcomes[string]]{},
		agent.Event[Dispatch[int]]{},
	}
	unknown := WorkerID(len(m.workers) + 7)
	ignored := []agent.Msg{
		agent.Pull{N: 0},
		agent.Pull{N: -1},
		agent.Event[Asked]{Value: Asked{Worker: unknown, N: 1}},
		agent.Event[Lost]{Value: Lost{Worker: unknown}},
		agent.Event[Left]{Value: Left{Worker: unknown, Handed: []uint64{0}}},
	}
	for _, w := range m.workers {
		if w.gone {
			ignored = append(ignored,
				agent.Event[Asked]{Value: Asked{Worker: w.id, N: 1}},
				agent.Event[Lost]{Value: Lost{Worker: w.id}},
				agent.Event[Left]{Value: Left{Worker: w.id}})
		}
	}
	if w := m.registered(); w != nil {
		ignored = append(ignored, agent.Event[Joined]{Value: Joined{Worker: w.id, Slots: 9, Tags: []string{"a"}}})
	}
	if k := int(pick) % (len(wrong) + len(ignored)); k < len(wrong) {
		m.unhandled(wrong[k])
	} else {
		m.ignored(ignored[k-len(wrong)])
	}
}
