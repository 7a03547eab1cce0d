package main

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/evolvekit/evolve/durable"
)

// fleet is how the processes of one load learn of each other: two queues
// on their NATS server that nothing consumes, whose lengths count the
// joiners that came and left. A joiner adds itself to the first before it
// takes an item, to the second once it holds none; the serving process
// keeps its server up until the counts agree (or fleetWait has passed), so
// that no joiner is left asking a server gone. Joiners that came and never
// left before it opened the fleet (killed, in an earlier run) do not count.
type fleet struct {
	joined, left *durable.Queue[string]
	came, gone   int // the counts as the fleet was opened
}

// queueName names the queue of ids, and the fleet's after it; fleetWait
// bounds how long the serving process waits for its joiners once the queue
// is empty, counting them every 50 ms.
const (
	queueName = "warehouse"
	fleetWait = 10 * time.Second
)

// openFleet opens the fleet's queues on the NATS server of the queue.
func openFleet(ctx context.Context, srv durable.Server) (*fleet, error) {
	joined, err := durable.Open[string](srv, durable.Config{Name: queueName + "-joined"})
	if err != nil {
		return nil, err
	}
	f := &fleet{joined: joined}
	if f.left, err = durable.Open[string](srv, durable.Config{Name: queueName + "-left"}); err != nil {
		joined.Close()
		return nil, err
	}
	if f.came, f.gone, err = f.counts(ctx); err != nil {
		f.close()
		return nil, err
	}
	return f, nil
}

// close closes the fleet's queues.
func (f *fleet) close() {
	f.joined.Close()
	f.left.Close()
}

// counts returns how many joiners came and left, in all runs.
func (f *fleet) counts(ctx context.Context) (came, gone int, err error) {
	ctx, cancel := context.WithTimeout(ctx, durable.DefaultConnectTimeout)
	defer cancel()
	if came, err = f.joined.Len(ctx); err == nil {
		gone, err = f.left.Len(ctx)
	}
	return came, gone, err
}

// join says that a joiner came, and returns its leave, which says that it
// left.
func (f *fleet) join(ctx context.Context) (leave func() error, err error) {
	id := strconv.FormatUint(rand.Uint64(), 36)
	if err := f.joined.Add(ctx, id, id); err != nil {
		return nil, err
	}
	return func() error {
		ctx, cancel := context.WithTimeout(context.Background(), durable.DefaultConnectTimeout)
		defer cancel()
		return f.left.Add(ctx, id, id)
	}, nil
}

// await waits until every joiner that came since the fleet was opened has
// left, up to fleetWait, says on w what it waited for, and returns how many
// came.
func (f *fleet) await(ctx context.Context, w io.Writer) (int, error) {
	start := time.Now()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		c, g, err := f.counts(ctx)
		came, present := c-f.came, (c-f.came)-(g-f.gone)
		switch {
		case err != nil:
			return 0, fmt.Errorf("counting the joiners: %w", err)
		case present <= 0 && came > 0:
			fmt.Fprintf(w, "warehouse: %s came and left; closing the queue after %v\n", plural(came, "joiner"), time.Since(start).Round(time.Millisecond))
			return came, nil
		case present <= 0:
			return 0, nil
		case time.Since(start) >= fleetWait:
			fmt.Fprintf(w, "warehouse: %d of %s still there after %v (killed?); closing the queue: what they hold is the next run's\n", present, plural(came, "joiner"), fleetWait)
			return came, nil
		}
		select {
		case <-ctx.Done():
			return came, ctx.Err()
		case <-tick.C:
		}
	}
}
