package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/compose"
	"github.com/evolvekit/evolve/parallel"
	"github.com/evolvekit/evolve/remote"
	"github.com/rs/zerolog"
)

// kinds are the workers the master starts, by name: two tokenizers, two
// classifiers (the first of which is killed part way through, with -kill)
// and one that holds both, on which a job goes on without a move.
var kinds = []struct{ name, kind string }{
	{"tok-1", "tokenize"}, {"tok-2", "tokenize"},
	{"cls-1", "classify"}, {"cls-2", "classify"},
	{"both-1", "both"},
}

// victim is the worker -kill kills.
const victim = "cls-1"

// tally is what the sink saw.
type tally struct {
	mu     sync.Mutex
	seen   map[int]int // verdicts by page
	wrong  []string    // verdicts with a wrong label
	moves  int         // the moves the verdicts' paths show
	half   chan struct{}
	halved bool
}

// master runs the pipeline and checks what reached the sink.
func master(ctx context.Context, cfg config, stdout, stderr io.Writer) error {
	log := zerolog.New(zerolog.SyncWriter(stdout)).With().Timestamp().Logger()
	pages, err := servePages(cfg.bigSize, largePages(cfg))
	if err != nil {
		return err
	}
	defer pages.close()
	node, err := remote.Listen(remote.NodeConfig{Addr: "127.0.0.1:0"})
	if err != nil {
		return err
	}
	defer node.Close()
	rt := agent.NewRuntime(agent.WithLogger(log))
	defer rt.Shutdown(context.Background())

	client := &http.Client{Timeout: 30 * time.Second}
	fetchPages, err := parallel.Stage(parallel.Config{Name: "fetch", Limit: 8},
		func(ctx context.Context, i int) (job, error) {
			text, err := fetch(ctx, client, pages.url(i))
			return job{Seq: i, URL: pages.url(i), Page: text, Size: len(text), Path: []string{"master: fetched"}}, err
		})
	if err != nil {
		return err
	}
	analyse, err := remote.Stage[job, verdict](remote.Config[job]{Node: node, Name: stageName, Unordered: true, TagWait: 30 * time.Second})
	if err != nil {
		return err
	}
	t := &tally{seen: map[int]int{}, half: make(chan struct{})}
	h, err := compose.Start(rt, compose.Pipe2(fetchPages, analyse), func(v verdict) { t.add(log, v, cfg.pages) })
	if err != nil {
		return err
	}
	crew, err := startCrew(node.Addr(), stderr)
	defer crew.stop()
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "pipeline: %d pages (%d over %d bytes) from %s, analysed on %d workers of the master at %s\n",
		cfg.pages, cfg.big, cfg.bigSize, pages.addr, len(kinds), node.Addr())
	for i := range cfg.pages {
		if err := h.Post(ctx, i); err != nil {
			return err
		}
	}
	if cfg.kill {
		select {
		case <-t.half:
			if err := crew.kill(victim); err != nil {
				return err
			}
			log.Warn().Str("worker", victim).Msg("killed (SIGKILL): its jobs go on elsewhere with their state")
		case <-ctx.Done():
		}
	}
	h.Close()
	if err := h.Wait(ctx); err != nil {
		return fmt.Errorf("the pipeline failed: %w", err)
	}
	waitCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	crew.wait(waitCtx) // workers leave once the stage has finished
	cancel()
	return t.check(stdout, cfg.pages)
}

// add counts the verdict v, logs its path, and closes half once half of
// the pages are in.
func (t *tally) add(log zerolog.Logger, v verdict, pages int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.seen[v.Seq]++
	if v.Label != expected(v.Seq) {
		t.wrong = append(t.wrong, fmt.Sprintf("page %d: %q, not %q", v.Seq, v.Label, expected(v.Seq)))
	}
	for _, step := range v.Path {
		if strings.HasSuffix(step, ": no stop words") || strings.HasSuffix(step, ": no model") {
			t.moves++
		}
	}
	log.Info().Int("page", v.Seq).Int("bytes", v.Size).Str("label", v.Label).Strs("path", v.Path).Msg("analysed")
	if !t.halved && len(t.seen) >= pages/2 {
		t.halved = true
		close(t.half)
	}
}

// check says whether every page reached the sink once with the right
// label, and prints the summary.
func (t *tally) check(out io.Writer, pages int) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	var missing, twice []int
	for i := range pages {
		switch n := t.seen[i]; {
		case n == 0:
			missing = append(missing, i)
		case n > 1:
			twice = append(twice, i)
		}
	}
	sort.Ints(missing)
	var errs []error
	if len(missing) > 0 {
		errs = append(errs, fmt.Errorf("%d pages never reached the sink: %v", len(missing), missing))
	}
	if len(twice) > 0 {
		errs = append(errs, fmt.Errorf("%d pages reached the sink more than once: %v", len(twice), twice))
	}
	if len(t.wrong) > 0 {
		errs = append(errs, fmt.Errorf("%d pages labelled wrong: %v", len(t.wrong), t.wrong))
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	fmt.Fprintf(out, "pipeline: every one of %d pages reached the sink once, labelled right, after %d moves between workers\n", pages, t.moves)
	return nil
}
