package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/evolvekit/evolve/agent"
	"github.com/evolvekit/evolve/buffer"
	"github.com/evolvekit/evolve/compose"
	"github.com/evolvekit/evolve/durable"
	"github.com/evolvekit/evolve/parallel"
	"github.com/evolvekit/evolve/rate"
)

// loadDurable loads through a durable queue, its own or with -join
// another's, until it is empty, each id acknowledged once its record is in
// a file, or in the state's dead letters' file. The rate agent takes its
// tokens from the limit all the processes on the queue share. A joiner
// comes and leaves the fleet around its load; a process with -listen waits
// for its joiners to leave before it closes its queue.
func (l *loader) loadDurable(ctx context.Context, rt *agent.Runtime, s *state, cfg config, stdout io.Writer) (err error) {
	q, f, err := l.open(ctx, s, cfg, stdout)
	if err != nil {
		return err
	}
	defer q.Close()
	if f != nil {
		defer f.close()
	}
	lim, err := q.Limit("api", l.rate, loaderBurst(l.rate))
	if errors.Is(err, durable.ErrConfig) {
		return flagError{fmt.Errorf("-rate: every process on a queue must pass the same -rate: %w", err)}
	} else if err != nil {
		return err
	}
	if cfg.join != "" {
		leave, err := f.join(ctx)
		if err != nil {
			return fmt.Errorf("-join: %w", err)
		}
		l.share = true
		defer func() {
			if lerr := leave(); lerr != nil {
				err = errors.Join(err, fmt.Errorf("-join: saying it left: %w", lerr))
			}
		}()
	} else if f != nil {
		tls := map[bool]string{true: " -tls-ca CA -tls-cert CERT -tls-key KEY (a certificate CA signed)"}[cfg.tlsConfig != nil]
		fmt.Fprintf(stdout, "warehouse: serving the queue at %s; join with: warehouse -join %s -api %s -rate %g%s\n", q.URL(), q.URL(), l.f.url, l.rate, tls)
	}
	err = l.consume(ctx, rt, q, s, lim, stdout)
	if dl := new(agent.DeadLettersError); (err == nil || errors.As(err, &dl)) && cfg.join == "" && f != nil {
		came, ferr := f.await(ctx, stdout)
		l.share = came > 0
		err = errors.Join(err, ferr)
	}
	return err
}

// open opens the queue another warehouse serves at cfg.join, or its own
// in s, filled first, then opened again listening at cfg.listen, if set,
// so that a joiner finds every id in it; and, for either, the fleet.
func (l *loader) open(ctx context.Context, s *state, cfg config, stdout io.Writer) (q *durable.Queue[int], f *fleet, err error) {
	qc, where, added := durable.Config{Name: queueName}, "-state", 0
	if cfg.join != "" {
		where = "-join " + cfg.join
		q, err = joinQueue(ctx, cfg, qc)
	} else if q, err = durable.Open[int](durable.Embedded{Dir: s.queue}, qc); err == nil {
		added, err = s.fill(ctx, q, l.n)
		if err == nil && cfg.listen != "" {
			q.Close()
			q, err = durable.Open[int](durable.Embedded{Dir: s.queue, Listen: cfg.listen, TLS: cfg.tlsConfig}, qc)
		}
	}
	left := 0
	if err == nil {
		left, err = q.Len(ctx)
	}
	if err == nil && (cfg.join != "" || cfg.listen != "") {
		f, err = openFleet(ctx, durable.Server{URL: q.URL(), TLS: cfg.tlsConfig})
	}
	if err != nil {
		if q != nil {
			q.Close()
		}
		return nil, nil, fmt.Errorf("%s: %w", where, err)
	}
	if cfg.join != "" {
		fmt.Fprintf(stdout, "warehouse: joined the queue at %s, which holds %d ids\n", cfg.join, left)
	} else {
		fmt.Fprintf(stdout, "warehouse: %d ids added to the queue in %s, %d to load\n", added, s.queue, left)
	}
	return q, f, nil
}

// joinQueue opens the queue another warehouse serves at cfg.join, waiting up
// to cfg.joinWait for it to come up, as when they are started together.
func joinQueue(ctx context.Context, cfg config, qc durable.Config) (*durable.Queue[int], error) {
	for deadline := time.Now().Add(cfg.joinWait); ; {
		q, err := durable.Open[int](durable.Server{URL: cfg.join, TLS: cfg.tlsConfig}, qc)
		if !errors.Is(err, durable.ErrUnreachable) {
			return q, err
		} else if time.Now().After(deadline) {
			return nil, fmt.Errorf("no warehouse serves a queue there after %v: start one with -state DIR -listen ADDR, and join the URL it prints (%w)", cfg.joinWait, err)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// consume runs the durable chain on q until the queue is empty.
func (l *loader) consume(ctx context.Context, rt *agent.Runtime, q *durable.Queue[int], s *state, lim rate.Shared, stdout io.Writer) error {
	stages, err := l.durableChain(s, lim)
	if err != nil {
		return err
	}
	c, err := compose.Start(rt, stages, durable.Batches(q, func([]durable.Item[record]) error { return nil }),
		compose.WithName("warehouse"), compose.WithDeadLetters(durable.DeadLetterSink(q, func(d agent.DeadLetter) error {
			// Written down before the queue lets the item go, so that a
			// later run knows it failed.
			if err := s.bury(d); err != nil {
				return err
			}
			l.dead.add(d)
			return nil
		})))
	if err != nil {
		return err
	}
	fetch, bound := fetchSize(l.rate), 1
	if st, err := c.Status(ctx); err == nil {
		bound = st.Bound + fetch
		fmt.Fprintf(stdout, "warehouse: a crash of this process would load again at most %d records: what it holds, its chain's Bound (%d) and a fetch (%d)\n",
			bound, st.Bound, fetch)
	}
	if !l.share { // a joiner's: the queue, and what a crash costs, are the serving process's
		defer s.loading(bound)()
	}
	err = durable.Consume(ctx, q, c, durable.WithUntilEmpty(), durable.WithFetchSize(fetch))
	if dl := new(agent.DeadLettersError); err != nil && !errors.As(err, &dl) {
		return err
	}
	l.count(c.Status)
	return err
}

// fetchSize returns how many ids Consume fetches at once: a second's worth
// at rate, from 1 to 64. Their leases are not renewed until the chain takes
// them, one at a time after a crash (durable's suspects): a fetch of 256
// (the default) at 20 a second, or of suspects, outlasts the lease, and
// the queue hands the rest out again, to be loaded twice.
func fetchSize(rate float64) int { return min(max(1, int(math.Ceil(rate))), 64) }

// durableChain returns the loader's chain on items of a durable queue: the
// stages of chain, the rate agent's tokens taken from lim, the limit every
// process on the queue shares, the GETs lifted to items, and the buffer
// writing the records of a batch not in a file yet. A partial batch is cut
// after a second, not to hold its items while the queue has no more.
func (l *loader) durableChain(s *state, lim rate.Shared) (agent.Stage[durable.Item[int], []durable.Item[record]], error) {
	var none agent.Stage[durable.Item[int], []durable.Item[record]]
	limit, err := rate.Stage(rate.Config[durable.Item[int]]{Name: "rate", Rate: l.rate, Burst: loaderBurst(l.rate), Shared: lim})
	if err != nil {
		return none, err
	}
	fetch, err := parallel.Stage(parallel.Config{Name: "fetch", Limit: l.parallel, Queue: 1, Unordered: true,
		Timeout: requestTimeout, Retry: l.retry}, durable.Map(l.f.fetch))
	if err != nil {
		return none, err
	}
	write, err := buffer.Stage(buffer.Config[durable.Item[record]]{Name: "files", Size: l.batch, MaxWait: time.Second},
		func(ctx context.Context, batch []durable.Item[record]) error {
			rs := s.fresh(batch)
			if len(rs) == 0 {
				return nil
			}
			if err := l.out.write(ctx, rs); err != nil {
				return err
			}
			s.mark(rs)
			l.loaded.Add(int64(len(rs)))
			return nil
		})
	if err != nil {
		return none, err
	}
	return compose.Pipe3(limit, fetch, write), nil
}
