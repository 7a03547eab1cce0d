package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/compose"
	"github.com/evolvekit/evolve/durable"
	"github.com/evolvekit/evolve/parallel"
	"github.com/evolvekit/evolve/remote"
	"github.com/rs/zerolog"
)

// queued runs the pipeline fed by a durable queue kept in cfg.state: the
// pages are added to it once, each job's moves are recorded in it (so a
// master killed between two steps comes back from the last move, not from
// the fetch), and each verdict goes to a log in the directory, once, before
// its item is acknowledged. With cfg.killAfter, the master kills itself
// (SIGKILL) once that many verdicts are in the log.
func queued(ctx context.Context, cfg config, stdout, stderr io.Writer) error {
	log := zerolog.New(zerolog.SyncWriter(stdout)).With().Timestamp().Logger()
	q, err := durable.Open[job](durable.Embedded{Dir: filepath.Join(cfg.state, "queue")}, durable.Config{Name: "pages"})
	if err != nil {
		return err
	}
	defer q.Close()
	book, err := openVerdicts(filepath.Join(cfg.state, "verdicts.ndjson"))
	if err != nil {
		return err
	}
	defer book.close()
	pages, err := servePages(cfg.bigSize, largePages(cfg))
	if err != nil {
		return err
	}
	defer pages.close()
	if err := addPages(ctx, q, cfg); err != nil {
		return err
	}
	node, err := remote.Listen(remote.NodeConfig{Addr: "127.0.0.1:0"})
	if err != nil {
		return err
	}
	defer node.Close()
	rt := agent.NewRuntime(agent.WithLogger(log))
	defer rt.Shutdown(context.Background())

	client := &http.Client{Timeout: 30 * time.Second}
	fetchPages, err := parallel.Stage(parallel.Config{Name: "fetch", Limit: 8}, durable.Map(
		func(ctx context.Context, j job) (job, error) {
			if j.Page != "" || j.Counts != nil {
				j.Path = append(j.Path, "master: resumed from its last move")
				return j, nil // a job that moved before the master went: it goes on from there
			}
			text, err := fetch(ctx, client, pages.url(j.Seq))
			j.Page, j.Size, j.Path = text, len(text), []string{"master: fetched"}
			return j, err
		}))
	if err != nil {
		return err
	}
	analyse, err := remote.Stage[durable.Item[job], durable.Item[verdict]](remote.Config[durable.Item[job]]{
		Node: node, Name: stageName, Unordered: true, TagWait: 30 * time.Second,
		Tag:    func(it durable.Item[job]) string { return it.Tag }, // where its last move asked to go on
		OnMove: q.Moved,                                             // each move's state into the queue
		Moves:  func(it durable.Item[job]) int { return it.Moves },  // its moves before a restart count too
	})
	if err != nil {
		return err
	}
	sink := durable.Sink(q, func(it durable.Item[verdict]) error {
		n, err := book.record(it.Value)
		if err != nil {
			return err
		}
		log.Info().Int("page", it.Value.Seq).Int("bytes", it.Value.Size).Str("label", it.Value.Label).Strs("path", it.Value.Path).Msg("analysed")
		if cfg.killAfter > 0 && n >= cfg.killAfter {
			log.Warn().Int("verdicts", n).Msg("the master kills itself (SIGKILL)")
			_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
		}
		return nil
	})
	h, err := compose.Start(rt, compose.Pipe2(fetchPages, analyse), sink)
	if err != nil {
		return err
	}
	crew, err := startCrew(node.Addr(), stderr, "-items")
	defer crew.stop()
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "pipeline: %d pages from the queue in %s, analysed on %d workers of the master at %s\n",
		cfg.pages, cfg.state, len(kinds), node.Addr())
	if err := durable.Consume(ctx, q, h, durable.WithUntilEmpty()); err != nil {
		return fmt.Errorf("the pipeline failed: %w", err)
	}
	waitCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	crew.wait(waitCtx)
	cancel()
	return book.check(stdout, cfg.pages)
}

// largePages returns the pages that are big.
func largePages(cfg config) map[int]bool {
	large := map[int]bool{}
	for k := range cfg.big {
		large[(2*k+1)*cfg.pages/(2*cfg.big)] = true
	}
	return large
}

// addPages adds the pages to q, once: each is keyed by its number, so a
// second run's adds are dropped as duplicates.
func addPages(ctx context.Context, q *durable.Queue[job], cfg config) error {
	entries := make([]durable.Entry[job], cfg.pages)
	for i := range entries {
		entries[i] = durable.Entry[job]{Key: fmt.Sprintf("page-%d", i), Value: job{Seq: i}}
	}
	return q.AddMany(ctx, entries)
}

// verdicts is the log of the verdicts that reached the sink, one JSON line
// each, over every run on the directory: a page already in it is not
// written again (its item is acknowledged all the same).
type verdicts struct {
	mu    sync.Mutex
	f     *os.File
	seen  map[int]verdict
	dupes int // verdicts of a page already in the log, this run
}

// openVerdicts opens the log at path, reading what earlier runs wrote.
func openVerdicts(path string) (*verdicts, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	v := &verdicts{f: f, seen: map[int]verdict{}}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		var d verdict
		if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
			// A line cut short by a kill: the item was not acknowledged,
			// and comes back.
			continue
		}
		v.seen[d.Seq] = d
	}
	if err := sc.Err(); err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	return v, nil
}

// record writes d to the log, synced, unless its page is in it already,
// and returns how many pages the log holds.
func (v *verdicts) record(d verdict) (int, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if _, ok := v.seen[d.Seq]; ok {
		v.dupes++
		return len(v.seen), nil
	}
	line, err := json.Marshal(d)
	if err != nil {
		return 0, err
	}
	if _, err := v.f.Write(append([]byte("\n"), line...)); err != nil {
		return 0, err
	}
	if err := v.f.Sync(); err != nil {
		return 0, err
	}
	v.seen[d.Seq] = d
	return len(v.seen), nil
}

// close closes the log.
func (v *verdicts) close() error { return v.f.Close() }

// check says whether the log holds every page once with the right label.
func (v *verdicts) check(out io.Writer, pages int) error {
	v.mu.Lock()
	defer v.mu.Unlock()
	var missing []int
	var errs []error
	resumed := 0
	for i := range pages {
		d, ok := v.seen[i]
		switch {
		case !ok:
			missing = append(missing, i)
		case d.Label != expected(i):
			errs = append(errs, fmt.Errorf("page %d labelled %q, not %q", i, d.Label, expected(i)))
		}
		for _, step := range d.Path {
			if step == "master: resumed from its last move" {
				resumed++
			}
		}
	}
	if len(missing) > 0 {
		errs = append(errs, fmt.Errorf("%d pages never reached the sink: %v", len(missing), missing))
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	fmt.Fprintf(out, "pipeline: every one of %d pages is in the log once, labelled right; went on from a move recorded before a master was killed: %d; came again after a kill, already in the log: %d\n",
		pages, resumed, v.dupes)
	return nil
}
