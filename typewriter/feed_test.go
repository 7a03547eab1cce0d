package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/compose"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFeederPostsEveryKeyInOrderThenDrainsTheChain(t *testing.T) {
	cfg := defaults()
	cfg.rate, cfg.parallel.n, cfg.buffer, cfg.workDelay, cfg.flushDelay = 1e6, 8, 3, time.Millisecond, 0
	cfg.path = filepath.Join(t.TempDir(), "out.txt")
	st, err := newStages(cfg)
	require.NoError(t, err)
	out, err := createOutput(cfg.path)
	require.NoError(t, err)
	rt := agent.NewRuntime()
	defer shutdown(rt, io.Discard)
	chain, err := st.start(rt, cfg, out, watch{})
	require.NoError(t, err)

	f := newFeeder()
	ran := make(chan error, 1)
	go func() { ran <- f.run(context.Background(), chain) }()
	var want strings.Builder
	for i := range 100 {
		k := rune('a' + i%26)
		require.True(t, f.add(k, 'é'))
		want.WriteString(string(k) + "é")
	}
	f.end()
	require.NoError(t, <-ran)
	assert.False(t, f.add('x'), "no key is taken after end")
	assert.Zero(t, f.waiting())
	select {
	case <-chain.Done():
	default:
		t.Error("the chain is done once the feeder's Wait returned")
	}

	final, err := chain.Status(context.Background())
	require.NoError(t, err, "a chain that is done gives its final status")
	require.Len(t, final.Agents, 3)
	for _, s := range final.Agents {
		assert.Equal(t, agent.Load{Done: 200, Demand: s.Demand}, s.Load, s.Name)
	}
	assert.GreaterOrEqual(t, final.Agents[2].Demand, agent.Unbounded/2, "nothing throttles the last stage")
	assert.Contains(t, describe(final.Agents[2]), "demand unbounded")
	require.NoError(t, out.close())
	assert.Equal(t, want.String(), strings.Join(fileLines(t, cfg.path), ""))
}

// gatePoster is a chain that takes a key only when the test lets it.
type gatePoster struct {
	mu     sync.Mutex
	taken  []rune
	let    chan struct{}
	closed bool
}

func (g *gatePoster) Post(ctx context.Context, k rune) error {
	select {
	case <-g.let:
	case <-ctx.Done():
		return ctx.Err()
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.taken = append(g.taken, k)
	return nil
}
func (g *gatePoster) Close()                     { g.mu.Lock(); g.closed = true; g.mu.Unlock() }
func (g *gatePoster) Wait(context.Context) error { return nil }

func TestFeederNeverBlocksTheTypist(t *testing.T) {
	g := &gatePoster{let: make(chan struct{})}
	f := newFeeder()
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan error, 1)
	go func() { ran <- f.run(ctx, g) }()

	for _, k := range "typed while the chain is full" {
		require.True(t, f.add(k))
	}
	assert.Equal(t, 29, f.waiting(), "every key waits, none is lost")
	g.let <- struct{}{}
	g.let <- struct{}{}
	cancel()
	assert.ErrorIs(t, <-ran, context.Canceled)
	assert.Equal(t, "ty", string(g.taken))
	assert.Equal(t, 27, f.waiting())
	assert.False(t, g.closed, "a cancelled feeder does not close the chain")
}

func TestFeederStopsAtAFailedPost(t *testing.T) {
	f := newFeeder()
	f.add('a', 'b')
	f.end()
	err := f.run(context.Background(), failPoster{})
	assert.ErrorContains(t, err, "refused")
	assert.Equal(t, 2, f.waiting(), "the key refused waits again")
}

type failPoster struct{}

func (failPoster) Post(context.Context, rune) error { return errors.New("refused") }
func (failPoster) Close()                           {}
func (failPoster) Wait(context.Context) error       { return nil }

func TestLogPaneKeepsTheLastLines(t *testing.T) {
	p := newLogPane(3)
	log := p.logger()
	for i := range 5 {
		log.Info().Int("n", i).Msg("event")
	}
	lines := p.tail(10)
	require.Len(t, lines, 3)
	for i, l := range lines {
		assert.Contains(t, l, fmt.Sprintf("INF event n=%d", i+2))
	}
	assert.Len(t, p.tail(1), 1)
}

// statusCounter is a chain whose status counts the calls; with flaky set,
// every second call fails. It is done once done is closed.
type statusCounter struct {
	n     int
	flaky bool
	done  chan struct{}
}

func (s *statusCounter) Status(context.Context) (compose.Status, error) {
	s.n++
	if s.flaky && s.n%2 == 0 {
		return compose.Status{}, errors.New("no status")
	}
	return compose.Status{Name: fmt.Sprint(s.n)}, nil
}
func (s *statusCounter) Done() <-chan struct{} { return s.done }

func TestPollStatusSendsUntilCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var sent []string
	pollStatus(ctx, &statusCounter{flaky: true}, func(st statusMsg) {
		sent = append(sent, st.Name)
		if len(sent) == 3 {
			cancel()
		}
	}, time.Millisecond)
	assert.Equal(t, []string{"1", "3", "5"}, sent, "a status the chain cannot give is skipped")
}

func TestPollStatusEndsWithTheFinalStatusOnceTheChainIsDone(t *testing.T) {
	chain := &statusCounter{done: make(chan struct{})}
	var sent []string
	pollStatus(context.Background(), chain, func(st statusMsg) {
		sent = append(sent, st.Name)
		if len(sent) == 1 {
			close(chain.done)
		}
	}, time.Hour)
	assert.Equal(t, []string{"1", "2"}, sent, "the chain's end wakes the poll, which sends the final status and returns")
}

func TestGuardTurnsAPanicIntoAnError(t *testing.T) {
	err := guard(func() error { panic("boom") })
	require.Error(t, err)
	assert.Contains(t, err.Error(), "panic: boom")
	assert.Contains(t, err.Error(), "goroutine", "the error carries the stack")
	assert.EqualError(t, guard(func() error { return errors.New("plain") }), "plain")
}
