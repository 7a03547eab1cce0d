package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"sync/atomic"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/compose"
)

// piped types the keys read from in: every rune but a newline is a key, and
// a newline logs every agent's status to stderr. At the end of in it closes
// the chain, waits until every key is in the file, and reports on stdout.
func piped(cfg config, st stages, out *output, in io.Reader, stdout, stderr io.Writer) int {
	rt := newRuntime(newLogger(stderr), cfg.meter)
	defer shutdown(rt, stderr)
	var lines atomic.Int64
	chain, err := st.start(rt, cfg, out, watch{written: func([]rune) { lines.Add(1) }})
	if err != nil {
		return fail(stderr, err)
	}
	ctx := context.Background()
	keys, rerr := typeAll(ctx, bufio.NewReader(in), chain)
	chain.Close()
	if err := errors.Join(rerr, chain.Wait(ctx)); err != nil {
		return fail(stderr, err)
	}
	summary(stdout, keys, int(lines.Load()), out.path)
	return 0
}

// typeAll posts every rune of in but newlines to chain, in order, blocking
// while the chain is full; a newline logs the chain's status. It returns the
// number of keys posted at the end of in, or the first error reading in or
// posting.
func typeAll(ctx context.Context, in io.RuneReader, chain agent.Handle[rune, compose.Status]) (int, error) {
	keys := 0
	for {
		k, _, err := in.ReadRune()
		switch {
		case errors.Is(err, io.EOF):
			return keys, nil
		case err != nil:
			return keys, fmt.Errorf("reading keys: %w", err)
		case k == '\n':
			chain.LogStatus()
			continue
		}
		if err := chain.Post(ctx, k); err != nil {
			return keys, fmt.Errorf("posting key %d: %w", keys+1, err)
		}
		keys++
	}
}
